package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A handle closed first on the store's answer thread (where the release is sent without
 * waiting), then closed again on another thread: the second close() waits for the release
 * the first sent, so that its caller may count on the lock being gone
 * ({@code Handle.awaitEarlierRelease}). Since 411cc21 JDBC's statement threads are such
 * threads, and a JDBC multi-key handle is taken key by key.
 */
class MultiKeyCloseOnTheAnswerThreadTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final AtomicReference<Thread> answerThread = new AtomicReference<>();

	private final ExecutorService onTheAnswerThread = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "test-answer-thread");
		thread.setDaemon(true);
		this.answerThread.set(thread);
		return thread;
	});

	private final HeldReleases store = new HeldReleases(new MemoryLockBackend(), this.answerThread);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	{
		this.closeables.add(() -> {
			this.store.answer.complete(null);
			this.onTheAnswerThread.shutdownNow();
		});
	}

	@Test
	void aSecondCloseOfAKeyWaitsForTheReleaseAFirstCloseOnTheAnswerThreadSent() throws Exception {
		LockHandle handle = this.lock.tryAcquire(LockRequest.of("answer-thread.single")).orElseThrow();
		assertSecondCloseWaitsForTheStore(handle);
	}

	@Test
	void aSecondCloseOfAMultiKeyHandleTakenKeyByKeyWaitsForTheReleasesAFirstCloseOnTheAnswerThreadSent()
			throws Exception {
		LockHandle handle = this.lock
			.tryAcquire(LockRequest.all(LockRequest.of("answer-thread.a"), LockRequest.of("answer-thread.b")))
			.orElseThrow();
		assertThat(handle).isInstanceOf(MultiKeyHandle.class);
		assertSecondCloseWaitsForTheStore(handle);
	}

	private void assertSecondCloseWaitsForTheStore(LockHandle handle) throws Exception {
		CompletableFuture.runAsync(handle::close, this.onTheAnswerThread).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(this.store.answer).isNotDone();
		CompletableFuture<Void> secondClose = CompletableFuture.runAsync(handle::close);
		// The releases are held back until the test lets them through: a second close
		// that returns meanwhile returned before the store answered.
		assertThatThrownBy(() -> secondClose.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
		this.store.answer.complete(null);
		secondClose.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** Answers releases once {@link #answer} completes; tells one thread as its own. */
	static final class HeldReleases extends ForwardingLockBackend implements StoreClientThreads {

		final CompletableFuture<Void> answer = new CompletableFuture<>();

		private final AtomicReference<Thread> answerThread;

		HeldReleases(LockBackend delegate, AtomicReference<Thread> answerThread) {
			super(delegate);
			this.answerThread = answerThread;
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			return this.delegate.release(claim).thenCombine(this.answer, (released, go) -> released);
		}

		@Override
		public boolean deliversAnswersOn(Thread thread) {
			return thread == this.answerThread.get();
		}

	}

}
