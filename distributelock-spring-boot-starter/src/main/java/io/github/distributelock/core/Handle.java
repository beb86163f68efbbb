package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One entry into a {@link HeldLock}; closing it gives back that entry only, once.
 */
final class Handle implements LockHandle {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private final HeldLock lock;

	/** The outcome of the release that closed this entry. */
	private final HandleRelease release = new HandleRelease();

	Handle(HeldLock lock) {
		this.lock = lock;
	}

	@Override
	public String key() {
		return this.lock.key;
	}

	@Override
	public long fencingToken() {
		return this.lock.fencingToken;
	}

	@Override
	public boolean isClosed() {
		return this.release.closed();
	}

	@Override
	public boolean isHeld() {
		return !this.release.closed() && this.lock.isHeld();
	}

	@Override
	public boolean isSuspect() {
		return isHeld() && this.lock.isSuspect();
	}

	@Override
	public LockHandle onLost(Consumer<LockHandle> listener) {
		this.lock.addLostListener(this, listener);
		return this;
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		return endAsync(false);
	}

	/**
	 * Closes this entry with the release in the store, if it comes to one, sent through
	 * {@code storeRelease}.
	 * @return whether the store still had the lock; {@code true} when other holds remain
	 */
	CompletableFuture<Boolean> releaseHold(@Nullable Executor callerExecutor, StoreRelease storeRelease) {
		CompletableFuture<@Nullable Void> outcome = new CompletableFuture<>();
		CompletableFuture<@Nullable Void> earlier = this.release.closeOnce(outcome);
		if (earlier != null) {
			return earlier.thenApply((ended) -> true);
		}
		return HandleRelease.endsWith(this.lock.releaseHold(callerExecutor, storeRelease, this), outcome);
	}

	/**
	 * Releases on the calling thread, which a blocking store's statement runs on too; an
	 * interrupt neither stops it nor is lost.
	 */
	@Override
	public void close() {
		end(false);
	}

	/**
	 * Closes this entry of a multi-key request that was not taken whole: as
	 * {@link #close()}, except that a lock whose last hold this is goes from the store at
	 * once, whatever its minimum hold, since such a request leaves nothing in the store.
	 */
	void giveBack() {
		end(true);
	}

	private void end(boolean givingBack) {
		CompletableFuture<@Nullable Void> outcome = new CompletableFuture<>();
		CompletableFuture<@Nullable Void> earlier = this.release.closeOnce(outcome);
		if (earlier != null) {
			if (!givingBack) {
				awaitEarlierRelease(earlier, this.lock.key);
			}
			return;
		}
		if (this.lock.onTheStoresAnswerThread()) {
			// Waiting here would wait for an answer that this very thread delivers: the
			// release ends once the thread is free again (store failures are retried).
			HandleRelease.endsWith(endHold(givingBack, null), outcome)
				.whenComplete((released, failure) -> logFailedRelease(failure));
			return;
		}
		CallerRuns callerRuns = this.lock.callerRuns();
		try {
			callerRuns
				.awaitUninterruptibly(HandleRelease.endsWith(endHold(givingBack, callerRuns.forRelease()), outcome));
		}
		catch (ExecutionException ex) {
			throw StoreCalls.asUnchecked(ex);
		}
	}

	private CompletableFuture<Boolean> endHold(boolean givingBack, @Nullable Executor callerExecutor) {
		return givingBack ? this.lock.giveBackHold(callerExecutor, this) : this.lock.releaseHold(callerExecutor, this);
	}

	/** {@link #giveBack()} without blocking. */
	CompletableFuture<Void> giveBackAsync() {
		return endAsync(true);
	}

	private CompletableFuture<Void> endAsync(boolean givingBack) {
		CompletableFuture<@Nullable Void> outcome = new CompletableFuture<>();
		CompletableFuture<@Nullable Void> earlier = this.release.closeOnce(outcome);
		if (earlier != null) {
			return earlier;
		}
		return HandleRelease.endsWith(endHold(givingBack, null), outcome).thenApply((released) -> null);
	}

	/** Whether the calling thread delivers the store's answers to this lock. */
	boolean onTheStoresAnswerThread() {
		return this.lock.onTheStoresAnswerThread();
	}

	/**
	 * Whether the give-back of this entry still waits for a renewal in flight before its
	 * release is sent ({@link HeldLock#releaseWaitsForARenewal()}).
	 */
	boolean releaseWaitsForARenewal() {
		return this.lock.releaseWaitsForARenewal();
	}

	/**
	 * Waits for the release an earlier call started ({@code releaseAsync}, or a close on
	 * another thread), so that a caller of {@code close()} may count on the lock being
	 * gone; not on the store's answer thread, which that release may still need. A
	 * failure of that release is its own caller's to handle.
	 */
	void awaitEarlierRelease(CompletableFuture<?> earlier, String key) {
		if (this.lock.onTheStoresAnswerThread()) {
			return;
		}
		try {
			this.lock.callerRuns().awaitUninterruptibly(earlier);
		}
		catch (ExecutionException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Closed lock '" + key + "', whose earlier release failed", ex.getCause());
			}
		}
	}

	private void logFailedRelease(@Nullable Throwable failure) {
		if (failure != null && logger.isDebugEnabled()) {
			logger.debug("Released lock '" + this.lock.key + "' without waiting, with a failure", failure);
		}
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + this.lock.key + ", fencingToken=" + this.lock.fencingToken + ", held=" + isHeld()
				+ "]";
	}

}
