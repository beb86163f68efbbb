package io.github.distributelock.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;

/**
 * One entry into a {@link HeldLock}; closing it gives back that entry only, once.
 */
final class Handle implements LockHandle {

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
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.lock.releaseHold();
		}
	}

	@Override
	public String toString() {
		return "LockHandle[key=" + this.lock.key + ", fencingToken=" + this.lock.fencingToken + ", held=" + isHeld()
				+ "]";
	}

}
