package io.github.distributelock.benchmarks.harness;

import java.util.List;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.ours.EngineV1;
import io.github.distributelock.benchmarks.ours.EngineV1Library;

/**
 * The rows of our lock as it was before the engine was rebuilt ({@link EngineV1}), beside
 * {@link Libraries}: {@code <store>-v1-handle} and {@code <store>-v1-trylock}, each
 * compared with today's row of the same call, {@code <store>-ours-handle} or
 * {@code <store>-ours-trylock}. Rows of the interleaved part only, measured when asked
 * for ({@code --libraries} or {@code --with-v1}), never in a run's default set.
 */
public final class EngineV1Libraries {

	private static final String V1 = "-v1-";

	private static final String TRYLOCK = "-trylock";

	private static final List<String> STORES = List.of("redis", "zookeeper", "jdbc");

	private EngineV1Libraries() {
	}

	/** Every row of engine v1: per store, handle then tryLock. */
	public static List<String> all() {
		return STORES.stream()
			.flatMap((store) -> List.of(store + V1 + "handle", store + V1 + "trylock").stream())
			.toList();
	}

	/** Whether a library is engine v1's. */
	public static boolean is(String name) {
		return all().contains(name);
	}

	/**
	 * Today's row of the same store and call.
	 * @param name a row of engine v1
	 * @return today's row, {@code <store>-ours-handle} or {@code <store>-ours-trylock}
	 */
	public static String today(String name) {
		return name.replace(V1, "-ours-");
	}

	static String label(String name) {
		return "distributelock engine v1 (" + EngineV1.COMMIT + ") "
				+ (name.endsWith(TRYLOCK) ? "tryLock / releaseLock" : "tryAcquire + close");
	}

	static LibraryConfiguration configuration(String name) {
		return EngineV1Library.configuration(Libraries.store(name), name.endsWith(TRYLOCK));
	}

	static LockLibrary create(String name, Endpoints endpoints, UnaryOperator<DataSource> dataSources)
			throws InterruptedException {
		boolean valueStyle = name.endsWith(TRYLOCK);
		return switch (Libraries.store(name)) {
			case "redis" -> EngineV1Library.onRedis(endpoints, valueStyle);
			case "zookeeper" -> EngineV1Library.onZooKeeper(endpoints, valueStyle);
			default -> EngineV1Library.onJdbc(endpoints, dataSources, valueStyle);
		};
	}

}
