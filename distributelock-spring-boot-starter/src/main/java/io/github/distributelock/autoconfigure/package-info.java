/**
 * Spring Boot auto-configuration of distributelock, chosen by
 * {@code distributelock.type}.
 */
@NullMarked
package io.github.distributelock.autoconfigure;

import org.jspecify.annotations.NullMarked;
