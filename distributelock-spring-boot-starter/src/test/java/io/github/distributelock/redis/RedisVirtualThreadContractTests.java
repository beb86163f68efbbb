package io.github.distributelock.redis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract on a real redis-server with every concurrent caller on a virtual
 * thread: mutual exclusion, waiting woken by release, hand-over between local threads and
 * shutdown all work when callers are virtual threads.
 * <p>
 * The build targets Java 17, so the virtual threads are created reflectively; the
 * {@code virtual-threads} Maven profile runs this class, by its tag, on a Java 21+ JDK
 * (Temurin 25) in a surefire execution of its own, and the default execution leaves it
 * out.
 */
@Tag("virtual-threads")
class RedisVirtualThreadContractTests extends AbstractLockBackendContractTests {

	private static final MethodHandle NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR = virtualThreadPerTaskExecutor();

	private static final MethodHandle IS_VIRTUAL = isVirtual();

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static StringRedisTemplate store;

	@BeforeAll
	static void inspectTheStore() {
		store = redis.store();
	}

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		closeAfterTest(factory::destroy);
		return new RedisLockBackend(factory);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return Boolean.TRUE.equals(store.hasKey("lock:" + key));
	}

	/** A new virtual thread per task, whatever the number asked for. */
	@Override
	protected ExecutorService newExecutor(int threads) {
		try {
			return (ExecutorService) NEW_VIRTUAL_THREAD_PER_TASK_EXECUTOR.invokeExact();
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Could not create a virtual thread executor", ex);
		}
	}

	@Test
	void callersRunOnVirtualThreads() throws Exception {
		assertThat(Runtime.version().feature()).as("Java version running this test: %s", Runtime.version())
			.isGreaterThanOrEqualTo(21);
		boolean virtual = CompletableFuture.supplyAsync(() -> isVirtual(Thread.currentThread()), callers())
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

	private static MethodHandle virtualThreadPerTaskExecutor() {
		try {
			return MethodHandles.publicLookup()
				.findStatic(java.util.concurrent.Executors.class, "newVirtualThreadPerTaskExecutor",
						MethodType.methodType(ExecutorService.class));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java " + Runtime.version()
					+ ". The virtual-threads Maven profile runs this test on such a JDK.", ex);
		}
	}

	private static MethodHandle isVirtual() {
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
