package io.github.distributelock.core;

/**
 * A {@link LockEventListener} written as one method, the one that is told the kind: the
 * engine's own listeners that wrap others, which must pass the kind on.
 */
@FunctionalInterface
interface KindListener extends LockEventListener {

	@Override
	default LockTracker acquiring(String key, String name, String backend) {
		return acquiring(key, name, backend, LockKind.EXCLUSIVE);
	}

	@Override
	LockTracker acquiring(String key, String name, String backend, LockKind kind);

}
