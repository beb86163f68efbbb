/**
 * Operations support, each part used only when its library is present: Micrometer
 * observations of acquisitions and holds, a health indicator for the lock store, and the
 * {@code distributelocks} actuator endpoint.
 */
@NullMarked
package io.github.distributelock.actuate;

import org.jspecify.annotations.NullMarked;
