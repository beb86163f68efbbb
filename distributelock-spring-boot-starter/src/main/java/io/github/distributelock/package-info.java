/**
 * The public API of distributelock: {@link io.github.distributelock.Lockable @Lockable}
 * for methods, {@link io.github.distributelock.DistributeLock DistributeLock} for locking
 * by hand, and the exceptions both raise.
 */
@NullMarked
package io.github.distributelock;

import org.jspecify.annotations.NullMarked;
