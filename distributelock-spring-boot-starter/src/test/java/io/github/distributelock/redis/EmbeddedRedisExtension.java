package io.github.distributelock.redis;

import java.io.IOException;

import io.github.distributelock.StoreExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The tests' redis-server ({@link EmbeddedRedis}): one real server on a free loopback
 * port for the whole test run, emptied for each class. <pre class="code">
 * &#64;RegisterExtension
 * static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();
 * </pre> A class whose tests stop and restart the server has one of
 * {@linkplain #ofItsOwn() its own}.
 */
public final class EmbeddedRedisExtension extends StoreExtension<EmbeddedRedisExtension.Server> {

	/** The server shared by the whole test run. */
	public EmbeddedRedisExtension() {
		this(true);
	}

	private EmbeddedRedisExtension(boolean shared) {
		super(Server.class, "redis-server", shared);
	}

	/**
	 * A server for the class alone, which its tests may {@link #stop()} and
	 * {@link #restart()}: started before its first test, stopped after its last.
	 */
	public static EmbeddedRedisExtension ofItsOwn() {
		return new EmbeddedRedisExtension(false);
	}

	@Override
	protected Server start() {
		EmbeddedRedis redis = EmbeddedRedis.start();
		LettuceConnectionFactory inspection = redis.newConnectionFactory();
		return new Server(redis, inspection, new StringRedisTemplate(inspection));
	}

	@Override
	protected void deleteAllLocks(Server server) {
		server.store().execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
	}

	/** A template on a connection of its own, to read the store directly. */
	public StringRedisTemplate store() {
		return started().store();
	}

	public int port() {
		return started().redis().port();
	}

	/**
	 * A new started connection factory, as another instance would have; the caller
	 * destroys it.
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		return started().redis().newConnectionFactory();
	}

	/**
	 * Stops the server, as a crash does: it keeps nothing, as it runs without
	 * persistence.
	 */
	public void stop() throws IOException {
		stoppable().redis().stop();
	}

	/** Starts the stopped server again on the same port, empty. */
	public void restart() throws IOException {
		stoppable().redis().restart();
	}

	/** A started server and the connection that reads it. */
	record Server(EmbeddedRedis redis, LettuceConnectionFactory inspection,
			StringRedisTemplate store) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			try {
				this.inspection.destroy();
			}
			finally {
				this.redis.close();
			}
		}

	}

}
