package io.github.distributelock.benchmarks.ours;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Engine v1's {@code DefaultDistributeLock} ({@link EngineV1}), called as
 * {@link OursLibrary} calls today's, in the same two styles, on the same kind of client:
 * {@code tryLock/releaseLock} with a caller's value, or a {@code LockHandle} from
 * {@code tryAcquire} closed after use. Its methods are called through method handles, a
 * few nanoseconds of a cycle of tens of microseconds; a handle is closed through
 * {@link AutoCloseable}, as today's is.
 */
public final class EngineV1Library implements LockLibrary {

	/**
	 * What engine v1 runs with on a store, for the page.
	 * @param store {@code redis}, {@code zookeeper} or {@code jdbc}
	 * @param valueStyle whether it is called in the original starter's style
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(String store, boolean valueStyle) {
		LibraryConfiguration today = OursLibrary.configuration(store, valueStyle);
		return new LibraryConfiguration("distributelock, engine v1 (" + EngineV1.COMMIT + ")",
				today.client() + ", the classes of " + EngineV1.COMMIT + " loaded from their own jar", today.settings(),
				today.calls());
	}

	/**
	 * Engine v1 on Redis, on a Lettuce connection factory of its own, as today's.
	 * @param endpoints the servers
	 * @param valueStyle whether it is called in the original starter's style
	 * @return the library
	 */
	public static EngineV1Library onRedis(Endpoints endpoints, boolean valueStyle) {
		LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(endpoints);
		return create("redis.RedisLockBackend", RedisConnectionFactory.class, factory, valueStyle, factory::destroy);
	}

	/**
	 * Engine v1 on ZooKeeper, on a Curator client of its own, as today's.
	 * @param endpoints the servers
	 * @param valueStyle whether it is called in the original starter's style
	 * @return the library
	 * @throws InterruptedException if interrupted while the client connects
	 */
	public static EngineV1Library onZooKeeper(Endpoints endpoints, boolean valueStyle) throws InterruptedException {
		CuratorFramework client = StoreClients.curator(endpoints);
		return create("zookeeper.ZooKeeperLockBackend", CuratorFramework.class, client, valueStyle, client::close);
	}

	/**
	 * Engine v1 on PostgreSQL, on a HikariCP pool of its own, as today's.
	 * @param endpoints the servers
	 * @param dataSources wraps the pool, to count its statements
	 * @param valueStyle whether it is called in the original starter's style
	 * @return the library
	 */
	public static EngineV1Library onJdbc(Endpoints endpoints, UnaryOperator<DataSource> dataSources,
			boolean valueStyle) {
		HikariDataSource pool = StoreClients.pool(endpoints);
		return create("jdbc.JdbcLockBackend", DataSource.class, dataSources.apply(pool), valueStyle, pool);
	}

	private static EngineV1Library create(String backend, Class<?> clientType, Object client, boolean valueStyle,
			AutoCloseable resources) {
		return new EngineV1Library(EngineV1.create(backend, clientType, client), valueStyle, resources);
	}

	private final Object lock;

	private final Object backend;

	private final boolean valueStyle;

	private final AutoCloseable resources;

	private final String valuePrefix = Long.toString(System.nanoTime(), 36) + ":";

	private final AtomicLong values = new AtomicLong();

	private EngineV1Library(EngineV1.Created created, boolean valueStyle, AutoCloseable resources) {
		this.lock = created.lock();
		this.backend = created.backend();
		this.valueStyle = valueStyle;
		this.resources = resources;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		try {
			if (this.valueStyle) {
				String value = this.valuePrefix + this.values.incrementAndGet();
				if (!(boolean) Calls.TRY_LOCK.invokeExact(this.lock, key, value, (int) wait.toMillis(), -1)) {
					return null;
				}
				return () -> release(key, value);
			}
			Optional<?> handle = (Optional<?>) Calls.TRY_ACQUIRE.invokeExact(this.lock, key, wait, (Duration) null);
			return handle.<Release>map((held) -> ((AutoCloseable) held)::close).orElse(null);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Releases as today's {@link OursLibrary} does, whatever {@code releaseLock} returns.
	 */
	private void release(String key, String value) throws Exception {
		try {
			boolean released = (boolean) Calls.RELEASE_LOCK.invokeExact(this.lock, key, value);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() throws Exception {
		((AutoCloseable) this.lock).close();
		if (this.backend instanceof AutoCloseable closeable) {
			closeable.close();
		}
		this.resources.close();
	}

	/**
	 * The methods of engine v1's lock, looked up once, when the first v1 library is
	 * created.
	 */
	private static final class Calls {

		static final MethodHandle TRY_ACQUIRE = EngineV1.lockMethod("tryAcquire",
				MethodType.methodType(Optional.class, String.class, Duration.class, Duration.class));

		static final MethodHandle TRY_LOCK = EngineV1.lockMethod("tryLock",
				MethodType.methodType(boolean.class, String.class, String.class, int.class, int.class));

		static final MethodHandle RELEASE_LOCK = EngineV1.lockMethod("releaseLock",
				MethodType.methodType(boolean.class, String.class, String.class));

	}

}
