package io.github.distributelock;

import org.jspecify.annotations.Nullable;

/**
 * Work to run by {@link DistributeLock#tryLockAndCallBack}, with or without the lock.
 *
 * @param <T> the type of the result
 * @since 1.0.0
 */
@FunctionalInterface
public interface CallBackExecutor<T extends @Nullable Object> {

	/**
	 * Runs the work.
	 * @return the result
	 * @throws Exception if the work fails
	 */
	T execute() throws Exception;

}
