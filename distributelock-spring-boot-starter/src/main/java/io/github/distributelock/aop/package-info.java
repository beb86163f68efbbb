/**
 * The {@link io.github.distributelock.Lockable @Lockable} interceptor, its advisor and
 * the SpEL lock key resolver.
 */
@NullMarked
package io.github.distributelock.aop;

import org.jspecify.annotations.NullMarked;
