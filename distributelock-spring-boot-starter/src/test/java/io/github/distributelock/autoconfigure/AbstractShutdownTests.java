package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HeldLockInfo;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the application context is a clean shutdown on every backend: the locks it held
 * are released in the store while the store's client is still open, its waiting threads
 * are told at once with a clear exception, and none of its locks is left in the store.
 * Each subclass starts a real store, configures the context on it, and reads the store
 * directly.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class AbstractShutdownTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(60);

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final Closeables closeables = new Closeables();

	/** The backend's name in messages, such as {@code redis}. */
	protected abstract String backendName();

	/**
	 * A runner with the auto-configuration of the store's client and of distributelock,
	 * connected to the store.
	 */
	protected abstract ApplicationContextRunner contextRunner();

	/**
	 * A configuration with a {@link CountingLockBackend} bean over the store client of
	 * the context, to see when a caller waits in the store.
	 */
	protected abstract Class<?> countingBackendConfiguration();

	/** The type of the bean whose destruction closes the context's store client. */
	protected abstract Class<?> storeClientType();

	/**
	 * The lock service of another instance, on a connection of its own; registered with
	 * {@link #closeAfterTest(AutoCloseable)} with whatever it needs closed.
	 */
	protected abstract DefaultDistributeLock otherInstance() throws Exception;

	/** The keys locked in the store now, read from the store and not through a lock. */
	protected abstract Set<String> heldKeysInStore() throws Exception;

	/** Checks the log for what a store client says when used after it closed. */
	protected void assertNoUseOfAClosedClient(CapturedOutput output) {
	}

	/** Closes {@code closeable} after the test, before what was registered earlier. */
	protected <T extends AutoCloseable> T closeAfterTest(T closeable) {
		return this.closeables.add(closeable);
	}

	@AfterEach
	void closeAll() throws Exception {
		this.callers.shutdownNow();
		this.closeables.close();
	}

	@Test
	void closingTheContextReleasesEveryLockAndWakesEveryWaiter(CapturedOutput output) throws Exception {
		DefaultDistributeLock otherInstance = otherInstance();
		LockHandle heldElsewhere = otherInstance.tryAcquire("shutdown.elsewhere", Duration.ZERO, null).orElseThrow();
		StoreClientCloseRecorder recorder = new StoreClientCloseRecorder(storeClientType(), this::heldKeysInStore);
		List<CompletableFuture<DistributeLockException>> waiters = new ArrayList<>();
		contextRunner().withUserConfiguration(countingBackendConfiguration())
			.withBean(StoreClientCloseRecorder.class, () -> recorder)
			.run((context) -> {
				DefaultDistributeLock lock = context.getBean(DefaultDistributeLock.class);
				recorder.lock = lock;
				lock.tryAcquire("shutdown.handle", Duration.ZERO, null).orElseThrow();
				assertThat(lock.tryLock("shutdown.value", "value-1", 0, 60_000)).isTrue();
				assertThat(heldKeysInStore()).containsExactlyInAnyOrder("shutdown.handle", "shutdown.value",
						"shutdown.elsewhere");
				// Waits in the store for a lock another instance holds...
				waiters.add(waitExpectingShutdown(lock, "shutdown.elsewhere", null));
				assertThat(context.getBean(CountingLockBackend.class).waiting.await(10, TimeUnit.SECONDS)).isTrue();
				// ...and at this instance's gate for a lock another thread of it holds.
				AtomicReference<Thread> gateThread = new AtomicReference<>();
				waiters.add(waitExpectingShutdown(lock, "shutdown.handle", gateThread));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> gateThread.get() != null && (gateThread.get().getState() == Thread.State.TIMED_WAITING
							|| gateThread.get().getState() == Thread.State.WAITING));
				context.close();
			});
		// Each waiter would wait 60 s: returning within 10 s means the shutdown woke it.
		for (CompletableFuture<DistributeLockException> waiter : waiters) {
			DistributeLockException woken = waiter.get(10, TimeUnit.SECONDS);
			assertThat(woken).hasMessage("Could not acquire lock '" + woken.getLockKey() + "' in " + backendName()
					+ ": the lock service is shutting down (the application context is closing)");
			assertThat(woken.getBackend()).isEqualTo(backendName());
		}
		assertThat(recorder.failure).as("reading the store as its client closed").isNull();
		assertThat(recorder.heldLocksAtClose).as("locks the lock service held when the store client closed").isEmpty();
		assertThat(recorder.heldKeysAtClose).as("locks in the store when the store client closed")
			.containsExactly("shutdown.elsewhere");
		assertThat(heldKeysInStore()).containsExactly("shutdown.elsewhere");
		heldElsewhere.close();
		assertThat(heldKeysInStore()).isEmpty();
		assertThat(output).doesNotContain("at shutdown").doesNotContain("were still running");
		assertNoUseOfAClosedClient(output);
	}

	@Test
	void stoppingTheContextWithoutClosingItLeavesTheLockServiceRunning() {
		contextRunner().withUserConfiguration(countingBackendConfiguration()).run((context) -> {
			context.stop();
			context.start();
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("restarted", Duration.ZERO, null).orElseThrow()) {
				assertThat(heldKeysInStore()).contains("restarted");
			}
			assertThat(heldKeysInStore()).doesNotContain("restarted");
		});
	}

	/**
	 * A child context (a management server's, a client factory's) that closes publishes
	 * its closing to this context's listeners too: it is not this context closing.
	 */
	@Test
	void aChildContextClosingLeavesTheLockServiceRunningThroughAStop() {
		contextRunner().withUserConfiguration(countingBackendConfiguration()).run((context) -> {
			try (AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext()) {
				child.setParent(context);
				child.refresh();
			}
			context.stop();
			context.start();
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("after.child", Duration.ZERO, null).orElseThrow()) {
				assertThat(heldKeysInStore()).contains("after.child");
			}
		});
	}

	private CompletableFuture<DistributeLockException> waitExpectingShutdown(DistributeLock lock, String key,
			@Nullable AtomicReference<Thread> thread) {
		return CompletableFuture.supplyAsync(() -> {
			if (thread != null) {
				thread.set(Thread.currentThread());
			}
			try {
				lock.tryAcquire(key, LONG_WAIT, null).ifPresent(LockHandle::close);
				throw new AssertionError("acquired '" + key + "' instead of being woken by the shutdown");
			}
			catch (DistributeLockException ex) {
				assertThat(ex.getLockKey()).isEqualTo(key);
				assertThat(Thread.currentThread().isInterrupted()).as("interrupt status after the wake-up").isFalse();
				return ex;
			}
			catch (InterruptedException ex) {
				throw new AssertionError("interrupted instead of told of the shutdown", ex);
			}
		}, this.callers);
	}

	@FunctionalInterface
	interface StoreReader {

		Set<String> heldKeys() throws Exception;

	}

	/**
	 * Looks at the lock service and the store just before the context's store client is
	 * closed, which is when the lock service must have released its locks.
	 */
	static final class StoreClientCloseRecorder implements DestructionAwareBeanPostProcessor {

		private final Class<?> storeClientType;

		private final StoreReader store;

		volatile @Nullable DefaultDistributeLock lock;

		volatile @Nullable List<HeldLockInfo> heldLocksAtClose;

		volatile @Nullable Set<String> heldKeysAtClose;

		volatile @Nullable Exception failure;

		StoreClientCloseRecorder(Class<?> storeClientType, StoreReader store) {
			this.storeClientType = storeClientType;
			this.store = store;
		}

		@Override
		public boolean requiresDestruction(Object bean) {
			return this.storeClientType.isInstance(bean);
		}

		@Override
		public void postProcessBeforeDestruction(Object bean, String beanName) {
			if (!this.storeClientType.isInstance(bean) || this.lock == null) {
				return;
			}
			this.heldLocksAtClose = this.lock.heldLocks();
			try {
				this.heldKeysAtClose = this.store.heldKeys();
			}
			catch (Exception ex) {
				this.failure = ex;
			}
		}

	}

}
