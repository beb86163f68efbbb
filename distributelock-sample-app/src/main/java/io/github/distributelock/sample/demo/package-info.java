/**
 * The oversell demo: two shop instances, many concurrent buyers, with the lock on and
 * off.
 */
@NullMarked
package io.github.distributelock.sample.demo;

import org.jspecify.annotations.NullMarked;
