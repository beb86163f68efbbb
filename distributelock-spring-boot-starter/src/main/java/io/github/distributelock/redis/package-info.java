/**
 * The Redis backend on Spring Data Redis: a {@code SET NX PX} key per lock, owner-checked
 * Lua scripts, release notifications over pub/sub.
 */
@NullMarked
package io.github.distributelock.redis;

import org.jspecify.annotations.NullMarked;
