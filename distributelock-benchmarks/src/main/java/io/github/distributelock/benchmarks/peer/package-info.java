/**
 * The peer libraries, one small adapter each, every one configured with that library's
 * documented defaults (the page's "Peer configurations" section lists them).
 */
@NullMarked
package io.github.distributelock.benchmarks.peer;

import org.jspecify.annotations.NullMarked;
