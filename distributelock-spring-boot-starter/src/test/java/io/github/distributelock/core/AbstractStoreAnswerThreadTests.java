package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Blocking calls made where a non-blocking acquisition goes on: on the thread of the
 * store's client that delivered its answer, which must also deliver the answer a blocking
 * call there waits for. An acquisition is refused at once with an error that says what to
 * do, instead of parking that thread (for ever on ZooKeeper, until the command times out
 * on Redis) and every caller of the client with it; a release is sent without waiting for
 * its answer.
 */
public abstract class AbstractStoreAnswerThreadTests {

	/** Far longer than any step of these tests, far shorter than a command timeout. */
	private static final Duration BOUND = Duration.ofSeconds(15);

	private static final int ROUNDS = 20;

	private static final Object NOT_ON_THE_ANSWER_THREAD = new Object();

	@RegisterExtension
	protected final Closeables closeables = new Closeables();

	/** A backend on a client of its own, as another instance's; closed after the test. */
	protected abstract LockBackend newBackend() throws Exception;

	/** Whether {@code thread} is one of the store client's own threads. */
	protected abstract boolean isStoreClientThread(Thread thread);

	@Test
	void aBlockingAcquisitionOnTheAnswerThreadIsRefusedAndTheClientGoesOnServing() throws Exception {
		DefaultDistributeLock lock = newLock();
		Object outcome = onTheAnswerThread(lock, "answer.thread.held", (handle) -> {
			try {
				return lock.tryAcquire(LockRequest.of("answer.thread").withWaitTime(Duration.ofSeconds(1)));
			}
			finally {
				handle.close();
			}
		});
		assertThat(outcome).isInstanceOf(IllegalStateException.class)
			.asString()
			.contains("Could not acquire lock 'answer.thread' in " + lock.backend().name(),
					"the thread that delivers the store's answers", "tryAcquireAsync");
		assertThat(lock.tryAcquire(LockRequest.of("answer.thread").withWaitTime(Duration.ofSeconds(5))))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void aHandleClosedOnTheAnswerThreadIsReleasedWithoutWaiting() throws Exception {
		DefaultDistributeLock lock = newLock();
		Object outcome = onTheAnswerThread(lock, "answer.thread.close", (handle) -> {
			handle.close();
			return Thread.currentThread();
		});
		assertThat(outcome).isInstanceOf(Thread.class);
		await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
		assertThat(newLock().tryAcquire(LockRequest.of("answer.thread.close"))).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void aValueReleasedOnTheAnswerThreadIsReleasedWithoutWaitingIfThisInstanceHoldsIt() throws Exception {
		DefaultDistributeLock lock = newLock();
		DistributeLock other = newLock();
		assertThat(other.tryLock("answer.thread.other", "other-value", 0, -1)).isTrue();
		assertThat(lock.tryLock("answer.thread.value", "value", 0, -1)).isTrue();
		Object outcome = onTheAnswerThread(lock, "answer.thread.release", (handle) -> {
			handle.close();
			Object refused;
			try {
				refused = lock.releaseLock("answer.thread.other", "other-value");
			}
			catch (IllegalStateException ex) {
				refused = ex;
			}
			return new Object[] { lock.releaseLock("answer.thread.value", "value"), refused };
		});
		assertThat(outcome).isInstanceOf(Object[].class);
		Object[] released = (Object[]) outcome;
		assertThat(released[0]).isEqualTo(true);
		assertThat(released[1]).isInstanceOf(IllegalStateException.class)
			.asString()
			.contains("Could not release lock 'answer.thread.other'", "Release it from another thread");
		await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
		assertThat(newLock().tryAcquire(LockRequest.of("answer.thread.value"))).hasValueSatisfying(LockHandle::close);
		assertThat(other.releaseLock("answer.thread.other", "other-value")).isTrue();
	}

	private DefaultDistributeLock newLock() throws Exception {
		return this.closeables.add(new DefaultDistributeLock(newBackend()));
	}

	/**
	 * Runs {@code work} where a non-blocking acquisition of {@code key} by {@code lock}
	 * goes on once another instance has released it, on the thread that delivered the
	 * store's answer; returns what the work returned or threw. The acquisition may also
	 * end on the thread that sent the last command, when the answer came before the
	 * callback was registered: such a round is given back and run again.
	 */
	private Object onTheAnswerThread(DefaultDistributeLock lock, String key, Work work) throws Exception {
		DefaultDistributeLock holder = newLock();
		for (int round = 0; round < ROUNDS; round++) {
			LockHandle held = holder.tryAcquire(LockRequest.of(key).withWaitTime(BOUND)).orElseThrow();
			CompletableFuture<Object> outcome = lock.tryAcquireAsync(LockRequest.of(key).withWaitTime(BOUND))
				.handle((Optional<LockHandle> handle, Throwable failure) -> {
					if (failure != null) {
						return failure;
					}
					if (!isStoreClientThread(Thread.currentThread())) {
						handle.orElseThrow().close();
						return NOT_ON_THE_ANSWER_THREAD;
					}
					try {
						return work.apply(handle.orElseThrow());
					}
					catch (Throwable ex) {
						return ex;
					}
				});
			held.close();
			Object result = outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS);
			if (result != NOT_ON_THE_ANSWER_THREAD) {
				return result;
			}
		}
		throw new AssertionError(
				"The acquisition never went on on a thread of the store's client in " + ROUNDS + " rounds");
	}

	@FunctionalInterface
	private interface Work {

		Object apply(LockHandle handle) throws Exception;

	}

}
