package io.github.distributelock.benchmarks.floor;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * The physical floor of a Redis lock: Lettuce's {@code SET k v NX PX} and an
 * owner-checked delete script run by SHA, two round trips on one shared connection.
 * Waiting, for the contended runs only, is a 1 ms retry loop.
 */
public final class LettuceFloor implements LockLibrary {

	/** What this floor runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("Lettuce",
			"`RedisClient.create(\"redis://127.0.0.1:port\")`, one connection shared by the JVM's threads",
			"lease 30 s, never renewed; waiting retries every 1 ms",
			"`SET key owner NX PX 30000`; unlock `EVALSHA` of a compare-and-delete script");

	private static final String DELETE = "if redis.call('GET', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('DEL', KEYS[1]) end return 0";

	private static final SetArgs NX_PX = SetArgs.Builder.nx().px(30_000);

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final String deleteSha;

	private final AtomicLong owners = new AtomicLong();

	public LettuceFloor(Endpoints endpoints) {
		this.client = RedisClient.create(RedisURI.create("127.0.0.1", endpoints.redisPort()));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.deleteSha = this.commands.scriptLoad(DELETE);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		String owner = Long.toString(this.owners.incrementAndGet());
		long deadline = System.nanoTime() + wait.toNanos();
		while (!"OK".equals(this.commands.set(key, owner, NX_PX))) {
			if (System.nanoTime() - deadline >= 0) {
				return null;
			}
			// The floor has no notification to wait for: it retries every
			// millisecond, the tightest loop a user would write.
			Thread.sleep(1);
		}
		return () -> this.commands.evalsha(this.deleteSha, ScriptOutputType.INTEGER, new String[] { key }, owner);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
