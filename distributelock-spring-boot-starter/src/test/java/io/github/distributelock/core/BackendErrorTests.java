package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A backend call that throws an {@link Error} (a {@code NoClassDefFoundError} of a
 * missing optional class, a {@code StackOverflowError}, a check such as BlockHound's)
 * instead of failing its stage is a failed store call like any other: the caller hears of
 * it, the key is not left locked in this JVM, and the shutdown does not wait for it for
 * ever.
 */
class BackendErrorTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private final ThrowingBackend store = new ThrowingBackend(this.memory);

	private DefaultDistributeLock newInstance() {
		return this.closeables
			.add(new DefaultDistributeLock(this.store, Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

	@Test
	void aReleaseThatThrowsAnErrorFailsTheCloseAndIsRetriedSoTheKeyIsFreedAgain() throws Exception {
		DefaultDistributeLock instance = newInstance();
		LockHandle handle = instance.tryAcquire("error.release", Duration.ZERO, null).orElseThrow();
		this.store.throwOnNextRelease.set(true);
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(handle::close)
			.withMessageContaining("error.release")
			.withRootCauseInstanceOf(LinkageError.class);
		await().atMost(BOUND).until(() -> !this.memory.isLocked("error.release"));
		assertThat(instance.tryAcquire("error.release", Duration.ofSeconds(5), null))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void theShutdownEndsWhenTheReleaseOfAHeldLockThrowsAnError() throws Exception {
		DefaultDistributeLock instance = newInstance();
		instance.tryAcquire("error.shutdown", Duration.ZERO, null).orElseThrow();
		this.store.throwOnNextRelease.set(true);
		CompletableFuture<Void> shutdown = CompletableFuture.runAsync(instance::close);
		assertThat(shutdown).succeedsWithin(BOUND);
	}

	@Test
	void anAttemptThatThrowsAnErrorFailsTheCallAndLeavesTheKeyFreeInThisInstance() throws Exception {
		DefaultDistributeLock instance = newInstance();
		this.store.throwOnNextAcquire.set(true);
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> instance.tryAcquire("error.acquire", Duration.ZERO, null))
			.withMessageContaining("error.acquire")
			.withRootCauseInstanceOf(LinkageError.class);
		assertThat(instance.tryAcquireAsync(LockRequest.of("error.acquire")).get(BOUND.toSeconds(), TimeUnit.SECONDS))
			.hasValueSatisfying(LockHandle::close);
	}

	/**
	 * A hand-over that throws before it reaches the store (here the backend's
	 * {@code admittedByRelease}; in the engine, a scheduler that {@code close()} stopped)
	 * turns into a plain release: the caller the holder had picked to hand the lock to
	 * goes on by itself instead of waiting for that hand-over for ever, and gets the
	 * lock.
	 */
	@Test
	void aHandOverThatThrowsBeforeReachingTheStoreBecomesAReleaseAndItsTakerGoesOn() throws Exception {
		SessionMemoryLockBackend sessions = this.closeables.add(new SessionMemoryLockBackend());
		DefaultDistributeLock instance = new DefaultDistributeLock(new ThrowingAdmission(sessions));
		LockHandle held = instance.tryAcquire("error.handover", Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				return instance.tryAcquire("error.handover", Duration.ofSeconds(2), null);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(BOUND).until(() -> instance.waitingAtGate("error.handover") == 1);
		held.close();
		assertThat(waiter).succeedsWithin(BOUND).satisfies((taken) -> {
			assertThat(taken).as("the waiter got the lock").isPresent();
			taken.get().close();
		});
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(sessions));
		assertThat(other.tryAcquire("error.handover", Duration.ZERO, null)).as("the key is free in the store")
			.hasValueSatisfying(LockHandle::close);
		CompletableFuture<Void> shutdown = CompletableFuture.runAsync(instance::close);
		assertThat(shutdown).as("the shutdown ends").succeedsWithin(BOUND);
	}

	/** Throws an error from the next call asked for, instead of returning a stage. */
	private static final class ThrowingBackend extends ForwardingLockBackend {

		final AtomicBoolean throwOnNextRelease = new AtomicBoolean();

		final AtomicBoolean throwOnNextAcquire = new AtomicBoolean();

		ThrowingBackend(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			if (this.throwOnNextAcquire.compareAndSet(true, false)) {
				throw new LinkageError("thrown by the backend's tryAcquire");
			}
			return this.delegate.tryAcquire(claim, lease);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			if (this.throwOnNextRelease.compareAndSet(true, false)) {
				throw new LinkageError("thrown by the backend's release");
			}
			return this.delegate.release(claim);
		}

	}

	/**
	 * A session store that hands over, whose check for a hand-over by release alone
	 * throws.
	 */
	private static final class ThrowingAdmission extends ForwardingLockBackend
			implements SessionLockBackend, HandOverLockBackend {

		private final SessionMemoryLockBackend sessions;

		ThrowingAdmission(SessionMemoryLockBackend sessions) {
			super(sessions);
			this.sessions = sessions;
		}

		@Override
		public void addLossListener(LockLossListener listener) {
			this.sessions.addLossListener(listener);
		}

		@Override
		public void removeLossListener(LockLossListener listener) {
			this.sessions.removeLossListener(listener);
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			return this.sessions.release(holder)
				.thenCompose((released) -> this.sessions.tryAcquire(next, lease)
					.thenApply((taken) -> new HandOver(released, taken)));
		}

		@Override
		public @Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
			throw new LinkageError("thrown by the backend's admittedByRelease");
		}

	}

}
