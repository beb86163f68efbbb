package io.github.distributelock.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A connection factory that does not share its native connection hands each call a
 * connection of its own, and one that shares it replaces it when it fails validation or
 * the application resets it. An attempt whose answer timed out may still be on its way to
 * Redis on its connection, and the engine then gives the claim back: the give-back must
 * not overtake the attempt on another connection, or it finds nothing to release, the
 * attempt takes the key after it, and the lock stays in the store, held by nobody, until
 * its lease ends.
 */
class RedisUnsharedConnectionGiveBackTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private TcpProxy proxy;

	private LettuceConnectionFactory factory;

	private RedisLockBackend backend;

	private DefaultDistributeLock lock;

	@BeforeEach
	void startTheProxy() {
		this.proxy = TcpProxy.start(redis.port());
	}

	/** A lock on a factory through the proxy that does not share its connection. */
	private void connect(boolean pooled) {
		connect(pooled, false, false);
	}

	/** A lock on a factory through the proxy. */
	private void connect(boolean pooled, boolean shared, boolean validated) {
		LettuceClientConfiguration configuration = pooled
				? LettucePoolingClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()
				: LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build();
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", this.proxy.port()),
				configuration);
		this.factory.setShareNativeConnection(shared);
		this.factory.setValidateConnection(validated);
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.backend = new RedisLockBackend(this.factory);
		this.lock = new DefaultDistributeLock(this.backend);
	}

	@AfterEach
	void close() throws Exception {
		this.proxy.releaseHeld();
		if (this.lock != null) {
			this.lock.close();
			this.backend.close();
			this.factory.destroy();
		}
		this.proxy.close();
	}

	@ParameterizedTest(name = "pooled: {0}")
	@ValueSource(booleans = { false, true })
	void aGiveBackAfterAnAttemptThatTimedOutDoesNotOvertakeTheAttempt(boolean pooled) throws Exception {
		connect(pooled);
		giveBackAfterAnAttemptThatTimedOut("unshared-give-back-" + pooled);
	}

	/**
	 * A factory that validates its shared connection sends a PING before handing it out:
	 * the give-back's PING waits behind the attempt on the shared connection, times out,
	 * and the factory replaces the connection, on which the give-back would go out before
	 * the attempt.
	 */
	@ParameterizedTest(name = "pooled: {0}")
	@ValueSource(booleans = { false, true })
	void aGiveBackDoesNotOvertakeAnAttemptOnASharedConnectionTheFactoryReplaced(boolean pooled) throws Exception {
		connect(pooled, true, true);
		giveBackAfterAnAttemptThatTimedOut("validated-give-back-" + pooled);
	}

	/**
	 * The client of a static master/replica factory has no URI of its own to open the
	 * lock's connection from: the lock stays on the factory's shared connection.
	 */
	@Test
	void aValidatingStaticMasterReplicaFactoryLocksOnItsSharedConnection() throws Exception {
		this.factory = new LettuceConnectionFactory(
				new RedisStaticMasterReplicaConfiguration("127.0.0.1", this.proxy.port()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		this.factory.setValidateConnection(true);
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.backend = new RedisLockBackend(this.factory);
		this.lock = new DefaultDistributeLock(this.backend);
		String key = "validated-static-master-replica";
		LockHandle handle = this.lock.tryAcquire(LockRequest.of(key)).orElseThrow();
		assertThat(locked(key)).isTrue();
		handle.close();
		assertThat(locked(key)).isFalse();
	}

	/**
	 * The default factory shares its native connection and does not validate it. An
	 * application that replaces that connection while an attempt is on its way closes it
	 * under the attempt, which fails, and the give-back went out on the factory's next
	 * shared connection, before the attempt.
	 */
	@ParameterizedTest(name = "initConnection: {0}")
	@ValueSource(booleans = { false, true })
	void aGiveBackDoesNotOvertakeAnAttemptWhenTheApplicationReplacesTheSharedConnection(boolean initializing)
			throws Exception {
		connect(false, true, false);
		giveBackAfterAFailedAttempt("replaced-give-back-" + initializing, () -> {
			if (initializing) {
				this.factory.initConnection();
			}
			else {
				this.factory.resetConnection();
			}
		});
	}

	private void giveBackAfterAnAttemptThatTimedOut(String key) throws Exception {
		giveBackAfterAFailedAttempt(key, () -> {
		});
	}

	/**
	 * An attempt held on its way to Redis fails (its answer times out, or
	 * {@code whileOnItsWay} closes its connection), and its claim is given back: the
	 * attempt, once let through, must not leave its lock in the store.
	 */
	private void giveBackAfterAFailedAttempt(String key, Runnable whileOnItsWay) throws Exception {
		// The scripts are loaded, so that each call is one EVALSHA.
		this.lock.tryAcquire(LockRequest.of(key + "-warm")).orElseThrow().close();
		long evalsBefore = evalshaCalls();
		this.proxy.holdNextChunkContaining(sha("acquire.lua"));
		this.proxy.watch(sha("release.lua"));
		// No wait time: a failed attempt is given back, not tried again.
		CompletableFuture<Optional<LockHandle>> call = this.lock
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ZERO));
		await().atMost(Duration.ofSeconds(10)).until(this.proxy::holding);
		whileOnItsWay.run();
		// The attempt fails: the caller is told, and the claim given back.
		assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.hasCauseInstanceOf(DistributeLockException.class);
		// At least: a give-back held behind the attempt times out too when the machine is
		// slow to reach releaseHeld(), and the engine sends it again.
		await().atMost(Duration.ofSeconds(10)).until(() -> this.proxy.watchedHeld() + this.proxy.watchedFree() >= 1);
		// A give-back on another connection has run by now; one behind the attempt on its
		// connection waits for it.
		await().atMost(Duration.ofSeconds(10)).until(() -> evalshaCalls() >= evalsBefore + this.proxy.watchedFree());
		this.proxy.releaseHeld();
		await().atMost(Duration.ofSeconds(10)).until(() -> evalshaCalls() >= evalsBefore + 2);
		assertThat(locked(key)).as("the attempt's lock is left in the store").isFalse();
	}

	/**
	 * A stop closes the lock's connection (the factory's, or one opened from its client,
	 * which the stop shuts down): the factory started again gives the lock a new one.
	 */
	@ParameterizedTest(name = "pooled: {0}, shared: {1}")
	@CsvSource({ "false,false", "true,false", "false,true", "true,true" })
	void theLockTakesAConnectionAgainFromItsFactoryStartedAgain(boolean pooled, boolean shared) throws Exception {
		connect(pooled, shared, false);
		String key = "restarted-" + pooled + "-" + shared;
		this.lock.tryAcquire(LockRequest.of(key)).orElseThrow().close();
		this.factory.stop();
		this.factory.start();
		LockHandle handle = this.lock.tryAcquire(LockRequest.of(key)).orElseThrow();
		assertThat(locked(key)).isTrue();
		handle.close();
		assertThat(locked(key)).isFalse();
	}

	private static boolean locked(String key) {
		return Boolean.TRUE.equals(redis.store().hasKey("lock:" + key));
	}

	private static long evalshaCalls() {
		Properties stats = redis.store()
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		String evalsha = stats.getProperty("cmdstat_evalsha", "calls=0,");
		return Long.parseLong(evalsha.substring("calls=".length(), evalsha.indexOf(',')));
	}

	private static byte[] sha(String script) throws IOException {
		String text = new ClassPathResource("io/github/distributelock/redis/" + script)
			.getContentAsString(StandardCharsets.UTF_8);
		return RedisScript.of(text).getSha1().getBytes(StandardCharsets.US_ASCII);
	}

}
