package io.github.distributelock.core;

/**
 * The kinds of lock on the in-memory reference backend: the executable specification the
 * store backends are held to.
 */
class MemoryLockKindsContractTests extends AbstractLockKindsContractTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	@Override
	protected LockBackend newBackend() {
		return this.store;
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return this.store.isLocked(key);
	}

}
