package io.github.distributelock.fault;

import java.time.Duration;
import java.util.Set;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A redis-server that is hung but connected. Lettuce notices nothing of it (no reset, no
 * close, and no keep-alive it acts on): every command sent waits for its command timeout
 * ({@code spring.data.redis.timeout}), which is the bound of each round trip, so a caller
 * is bounded by its wait plus one command timeout; a holder's renewals time out, and it
 * hears of its loss when its lease has run out, at the watchdog's next tick.
 */
class RedisHungServerTests extends AbstractHungServerTests {

	/** The command timeout of the clients behind the proxy (60 s by default). */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** The watchdog lease of the holder behind the proxy, renewed every third of it. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected String backendName() {
		return "redis";
	}

	@Override
	protected int storePort() {
		return redis.port();
	}

	@Override
	protected DefaultDistributeLock callerThrough(TcpProxy proxy) {
		return lock(EmbeddedRedis.connectionFactory(proxy.port(), COMMAND_TIMEOUT), Duration.ofSeconds(30));
	}

	@Override
	protected DefaultDistributeLock holderThrough(TcpProxy proxy) {
		return lock(EmbeddedRedis.connectionFactory(proxy.port(), COMMAND_TIMEOUT), LEASE);
	}

	@Override
	protected DefaultDistributeLock direct() {
		return lock(redis.newConnectionFactory(), Duration.ofSeconds(30));
	}

	/**
	 * The lock's key or any of its side keys but its fencing counter, which outlives it
	 * by design.
	 */
	@Override
	protected boolean isLocked(String key) {
		String lockKey = RedisLockBackend.DEFAULT_KEY_PREFIX + key;
		Set<String> keys = redis.store().keys("*" + lockKey + "*");
		return keys != null && keys.stream()
			.anyMatch((stored) -> stored.equals(lockKey)
					|| (stored.startsWith("{" + lockKey + "}:") && !stored.endsWith("}:fence")));
	}

	/** A round trip to a hung server ends at the command timeout. */
	@Override
	protected Duration callerAllowance() {
		return COMMAND_TIMEOUT;
	}

	/**
	 * The lease runs out at most a lease after the server hangs (counted from the last
	 * renewal it answered), and the watchdog reports it at its next tick.
	 */
	@Override
	protected Duration lossBound() {
		return LEASE.plus(LEASE.dividedBy(3));
	}

	/** The release goes into the hung server, and fails at the command timeout. */
	@Override
	protected Duration releaseBound() {
		return COMMAND_TIMEOUT;
	}

	/** The key expires with the lease, before the loss is told. */
	@Override
	protected Duration storeExpiry() {
		return Duration.ofSeconds(1);
	}

	@Override
	protected Duration recovery() {
		return COMMAND_TIMEOUT.multipliedBy(5);
	}

	private DefaultDistributeLock lock(LettuceConnectionFactory factory, Duration lease) {
		this.closeables.add(factory::destroy);
		return this.closeables.add(new DefaultDistributeLock(this.closeables.add(new RedisLockBackend(factory)), lease,
				false, LockEventListener.NONE, null));
	}

}
