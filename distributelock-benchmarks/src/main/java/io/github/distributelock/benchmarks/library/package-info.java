/**
 * What every measured library is to the harnesses: a
 * {@link io.github.distributelock.benchmarks.library.LockLibrary}, the servers'
 * {@link io.github.distributelock.benchmarks.library.Endpoints}, and the store clients
 * built the way an application builds them.
 */
@NullMarked
package io.github.distributelock.benchmarks.library;

import org.jspecify.annotations.NullMarked;
