package io.github.distributelock.benchmarks.ours;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The starter as it was before its engine was rebuilt (engine v1, commit {@code 01a6704};
 * the rebuild is {@code fce0dc1}), loaded from its own jar beside today's starter in one
 * JVM, so that the two engines can be interleaved batch by batch. Its
 * {@code io.github.distributelock} classes and resources come from that jar, child first;
 * everything else (Spring, Lettuce, Curator, HikariCP, the JDBC driver) from the
 * benchmarks' class path, as today's starter gets them.
 * <p>
 * The jar is built by {@value #BUILD_SCRIPT}, from the repository's history, with that
 * commit's own Maven wrapper and poms; {@link #buildIfMissing()} runs it.
 */
public final class EngineV1 {

	/** The commit of engine v1: the last one before the engine was rebuilt. */
	public static final String COMMIT = "01a6704";

	/** The script that builds the jar, from the repository's root. */
	public static final String BUILD_SCRIPT = "distributelock-benchmarks/build-v1-starter.sh";

	/** The jar, from the repository's root. */
	public static final Path JAR = Path.of("distributelock-benchmarks", "target", "v1", "distributelock-v1.jar");

	private static final Log logger = LogFactory.getLog(EngineV1.class);

	private static final long LONGEST_BUILD_MINUTES = 10;

	private static final String PACKAGE = "io.github.distributelock.";

	private static final String BENCHMARKS = "io.github.distributelock.benchmarks.";

	private static final String RESOURCES = "io/github/distributelock/";

	private static final String DEFAULT_DISTRIBUTE_LOCK = PACKAGE + "core.DefaultDistributeLock";

	private static final String LOCK_BACKEND = PACKAGE + "core.LockBackend";

	private static @Nullable ClassLoader classLoader;

	private EngineV1() {
	}

	/**
	 * Builds the jar with {@value #BUILD_SCRIPT} unless it is there, its output going to
	 * a log beside it.
	 * @throws IOException if the script cannot be started
	 * @throws InterruptedException if interrupted while it builds
	 */
	public static void buildIfMissing() throws IOException, InterruptedException {
		if (Files.isRegularFile(JAR)) {
			return;
		}
		Path log = JAR.resolveSibling("build.log");
		Files.createDirectories(log.getParent());
		logger.info("Building engine v1 (" + COMMIT + ") into " + JAR + " with " + BUILD_SCRIPT + "; log in " + log);
		Process build = new ProcessBuilder("sh", BUILD_SCRIPT, COMMIT).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		if (!build.waitFor(LONGEST_BUILD_MINUTES, TimeUnit.MINUTES)) {
			build.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			throw new IllegalStateException(
					BUILD_SCRIPT + " ran past " + LONGEST_BUILD_MINUTES + " minutes; see " + log);
		}
		if (build.exitValue() != 0 || !Files.isRegularFile(JAR)) {
			throw new IllegalStateException(BUILD_SCRIPT + " failed with " + build.exitValue() + "; see " + log);
		}
	}

	/**
	 * Creates engine v1's {@code DefaultDistributeLock} over one of its backends, each
	 * built with its one-argument constructor, as {@code new DefaultDistributeLock(new
	 * RedisLockBackend(connectionFactory))} was written then.
	 * @param backend the backend's class name under {@code io.github.distributelock}, as
	 * {@code redis.RedisLockBackend}
	 * @param clientType the type of the backend constructor's argument
	 * @param client the store's client
	 * @return the lock, and the backend to close after it
	 */
	static Created create(String backend, Class<?> clientType, Object client) {
		try {
			ClassLoader loader = classLoader();
			MethodHandles.Lookup lookup = MethodHandles.publicLookup();
			Class<?> backendClass = loader.loadClass(PACKAGE + backend);
			Object backendInstance = lookup.findConstructor(backendClass, MethodType.methodType(void.class, clientType))
				.invoke(client);
			Class<?> lockClass = loader.loadClass(DEFAULT_DISTRIBUTE_LOCK);
			Object lock = lookup
				.findConstructor(lockClass, MethodType.methodType(void.class, loader.loadClass(LOCK_BACKEND)))
				.invoke(backendInstance);
			return new Created(lock, backendInstance);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Could not create engine v1's lock on " + backend + " from " + JAR, ex);
		}
	}

	/**
	 * A public method of engine v1's {@code DefaultDistributeLock}, typed for
	 * {@code invokeExact} with the lock as an {@code Object}.
	 * @param name the method's name
	 * @param type its type, without the receiver
	 * @return the method
	 */
	static MethodHandle lockMethod(String name, MethodType type) {
		try {
			Class<?> lockClass = classLoader().loadClass(DEFAULT_DISTRIBUTE_LOCK);
			return MethodHandles.publicLookup()
				.findVirtual(lockClass, name, type)
				.asType(type.insertParameterTypes(0, Object.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Engine v1 in " + JAR + " has no DefaultDistributeLock." + name + type, ex);
		}
	}

	private static synchronized ClassLoader classLoader() {
		if (classLoader == null) {
			if (!Files.isRegularFile(JAR)) {
				throw new IllegalStateException(
						"No engine v1 jar at " + JAR.toAbsolutePath() + ": build it with " + BUILD_SCRIPT
								+ " from the repository's root (BenchmarkMain does it when a v1 row is asked for)");
			}
			try {
				classLoader = new ChildFirst(JAR.toUri().toURL(), EngineV1.class.getClassLoader());
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot read " + JAR, ex);
			}
		}
		return classLoader;
	}

	/**
	 * Engine v1's lock and its backend, created together.
	 *
	 * @param lock the {@code DefaultDistributeLock}
	 * @param backend its backend
	 */
	record Created(Object lock, Object backend) {

	}

	/**
	 * Loads the starter's classes and resources from the jar first: the same names are on
	 * the parent's class path as today's starter.
	 */
	private static final class ChildFirst extends URLClassLoader {

		static {
			registerAsParallelCapable();
		}

		ChildFirst(URL jar, ClassLoader parent) {
			super("engine-v1", new URL[] { jar }, parent);
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.startsWith(PACKAGE) || name.startsWith(BENCHMARKS)) {
				return super.loadClass(name, resolve);
			}
			synchronized (getClassLoadingLock(name)) {
				Class<?> loaded = findLoadedClass(name);
				if (loaded == null) {
					loaded = findClass(name);
				}
				if (resolve) {
					resolveClass(loaded);
				}
				return loaded;
			}
		}

		@Override
		public @Nullable URL getResource(String name) {
			URL own = name.startsWith(RESOURCES) ? findResource(name) : null;
			return (own != null) ? own : super.getResource(name);
		}

	}

}
