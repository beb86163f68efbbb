/**
 * The JDBC backend on Spring's {@code JdbcTemplate}: a row per held lock in a lock table
 * of the application's database, leases on the database clock, fencing tokens from a
 * sequence, one SQL dialect per database with its statements as resources.
 */
@NullMarked
package io.github.distributelock.jdbc;

import org.jspecify.annotations.NullMarked;
