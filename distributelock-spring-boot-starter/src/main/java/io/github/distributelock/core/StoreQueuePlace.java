package io.github.distributelock.core;

import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * A fair call's place among the callers of this JVM queued in the store for its key:
 * listed in the order the store answered their attempts, and claimed by a holder of this
 * JVM that hands it the lock while it waits there (see
 * {@link LocalLocks.Slot#successor(LockKind)}).
 */
final class StoreQueuePlace {

	private final LocalLocks.Slot slot;

	private final Acquisition call;

	/**
	 * Whether the call waits in the store's queue: set when an attempt left it queued
	 * there, cleared by whichever comes first of the call going on by itself and a holder
	 * claiming it.
	 */
	private final AtomicBoolean waiting = new AtomicBoolean();

	private final AtomicBoolean listed = new AtomicBoolean();

	StoreQueuePlace(LocalLocks.Slot slot, Acquisition call) {
		this.slot = slot;
		this.call = call;
	}

	/**
	 * Takes an attempt's answer on the thread it came on, so that the calls of this JVM
	 * are listed in the order the store queued them.
	 */
	void answered(@Nullable AcquireResult attempt) {
		if (attempt == null || attempt.acquired()) {
			return;
		}
		if (this.listed.compareAndSet(false, true)) {
			this.slot.waitInStoreQueue(this.call);
		}
		this.waiting.set(true);
	}

	/**
	 * Whether the call goes on by itself: no holder claimed it, and none can any more.
	 */
	boolean goOnAlone() {
		return this.waiting.compareAndSet(true, false);
	}

	/** Claims the call for a hand-over, unless it has gone on by itself. */
	boolean claim() {
		return this.waiting.compareAndSet(true, false);
	}

	/** Whether a holder claimed the call, or it went on: it waits for nothing now. */
	boolean waitsForNothing() {
		return !this.waiting.get();
	}

	/** Takes the call off the list once it has ended. */
	void leave() {
		if (this.listed.get()) {
			this.slot.leaveStoreQueue(this.call);
		}
	}

}
