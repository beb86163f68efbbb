package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
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

	private final AtomicBoolean closed = new AtomicBoolean();

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
	public boolean isHeld() {
		return !this.closed.get() && this.lock.isHeld();
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
		if (!this.closed.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		return this.lock.releaseHold(null).thenApply((released) -> null);
	}

	/**
	 * Closes this entry with the release in the store, if it comes to one, sent through
	 * {@code storeRelease}.
	 * @return whether the store still had the lock; {@code true} when other holds remain
	 */
	CompletableFuture<Boolean> releaseHold(@Nullable Executor callerExecutor, StoreRelease storeRelease) {
		if (!this.closed.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(true);
		}
		return this.lock.releaseHold(callerExecutor, storeRelease);
	}

	/**
	 * Releases on the calling thread, which a blocking store's statement runs on too; an
	 * interrupt neither stops it nor is lost.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		if (this.lock.onTheStoresAnswerThread()) {
			// Waiting here would wait for an answer that this very thread delivers: the
			// release ends once the thread is free again (store failures are retried).
			this.lock.releaseHold(null).whenComplete((released, failure) -> logFailedRelease(failure));
			return;
		}
		CallerRuns callerRuns = this.lock.callerRuns();
		try {
			callerRuns.awaitUninterruptibly(this.lock.releaseHold(callerRuns.forRelease()));
		}
		catch (ExecutionException ex) {
			throw StoreCalls.asUnchecked(ex);
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
