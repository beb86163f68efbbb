package io.github.distributelock.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual threads for the contract tests, created reflectively as the build targets Java
 * 17; only the tests of {@link VirtualThreadContract} use them, on a Java 21+ JDK.
 */
public final class VirtualThreads {

	private static final MethodHandle NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR = findNewVirtualThreadPerTaskExecutor();

	private static final MethodHandle IS_VIRTUAL = findIsVirtual();

	private VirtualThreads() {
	}

	/** An executor that runs each task on a new virtual thread. */
	public static ExecutorService newExecutor() {
		try {
			return (ExecutorService) NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR.invokeExact();
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Could not create a virtual thread executor", ex);
		}
	}

	/** Asserts that this JDK has virtual threads and that {@code callers} use them. */
	public static void assertCallersRunOnVirtualThreads(Executor callers) throws Exception {
		assertThat(Runtime.version().feature()).as("Java version running this test: %s", Runtime.version())
			.isGreaterThanOrEqualTo(21);
		boolean virtual = CompletableFuture.supplyAsync(() -> isVirtual(Thread.currentThread()), callers)
			.get(10, TimeUnit.SECONDS);
		assertThat(virtual).as("callers on Java %s run on virtual threads", Runtime.version()).isTrue();
	}

	private static boolean isVirtual(Thread thread) {
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
					+ ". The build runs these tests on the JDK named by the virtual-threads.jvm property.", ex);
		}
	}

	private static MethodHandle findIsVirtual() {
		try {
			return MethodHandles.publicLookup()
				.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java " + Runtime.version(),
					ex);
		}
	}

}
