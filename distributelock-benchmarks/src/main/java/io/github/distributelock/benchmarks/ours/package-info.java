/**
 * distributelock measured as users call it: the {@code DistributeLock} bean in both call
 * styles, a {@code @Lockable} method in a Spring Boot application, and an in-memory
 * backend that leaves only the engine's cost.
 */
@NullMarked
package io.github.distributelock.benchmarks.ours;

import org.jspecify.annotations.NullMarked;
