package io.github.distributelock.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual threads for the contract tests, created reflectively as the build targets Java
 * 17; only the variants marked {@link VirtualThreadContract} use them, on a Java 21+ JDK.
 */
public final class VirtualThreads {

	/**
	 * Thread.isVirtual(), or null before Java 21, where every thread is a platform one.
	 */
	private static final @Nullable MethodHandle IS_VIRTUAL = findIsVirtual();

	private VirtualThreads() {
	}

	/** An executor that runs each task on a new virtual thread. */
	public static ExecutorService newExecutor() {
		try {
			return (ExecutorService) findNewVirtualThreadPerTaskExecutor().invokeExact();
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Could not create a virtual thread executor", ex);
		}
	}

	/**
	 * Asserts that {@code callers} run their tasks on virtual threads if {@code virtual},
	 * and on platform threads otherwise; virtual ones need Java 21+.
	 */
	public static void assertCallersRunOnVirtualThreads(Executor callers, boolean virtual) throws Exception {
		if (virtual) {
			assertThat(Runtime.version().feature()).as("Java version running this test: %s", Runtime.version())
				.isGreaterThanOrEqualTo(21);
		}
		boolean onVirtual = CompletableFuture.supplyAsync(() -> isVirtual(Thread.currentThread()), callers)
			.get(10, TimeUnit.SECONDS);
		assertThat(onVirtual).as("callers on Java %s run on virtual threads", Runtime.version()).isEqualTo(virtual);
	}

	private static boolean isVirtual(Thread thread) {
		if (IS_VIRTUAL == null) {
			return false;
		}
		try {
			return (boolean) IS_VIRTUAL.invokeExact(thread);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static MethodHandle findNewVirtualThreadPerTaskExecutor() {
		try {
			return MethodHandles.publicLookup()
				.findStatic(Executors.class, "newVirtualThreadPerTaskExecutor",
						MethodType.methodType(ExecutorService.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java " + Runtime.version()
					+ ". The build runs these tests on the JDK of the Maven toolchain matching the virtual-threads.jdk property.",
					ex);
		}
	}

	private static @Nullable MethodHandle findIsVirtual() {
		try {
			return MethodHandles.publicLookup()
				.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		}
		catch (ReflectiveOperationException ex) {
			return null;
		}
	}

}
