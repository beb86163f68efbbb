/**
 * The lock engine that every backend shares
 * ({@link io.github.distributelock.core.DefaultDistributeLock}) and the small SPI a
 * backend implements ({@link io.github.distributelock.core.LockBackend}).
 */
@NullMarked
package io.github.distributelock.core;

import org.jspecify.annotations.NullMarked;
