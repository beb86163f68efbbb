package io.github.distributelock.jdbc;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * MySQL 8.0 or later, which has neither sequences nor {@code RETURNING}: an attempt is
 * three statements in one short transaction (draw a token from an {@code AUTO_INCREMENT}
 * counter table, {@code INSERT ... ON DUPLICATE KEY UPDATE} that takes over only a free
 * row with a smaller token, read the row back), so tokens of a key still only grow.
 * MariaDB reports itself as MySQL to MySQL drivers; it has a dialect of its own.
 */
final class MySqlLockDialect extends JdbcLockDialect {

	private static final Pattern MAJOR_VERSION = Pattern.compile("^(\\d+)\\.");

	@Override
	String name() {
		return "mysql";
	}

	@Override
	String database() {
		return "MySQL 8.0 or later";
	}

	@Override
	String productName() {
		return "MySQL";
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "MySQL".equalsIgnoreCase(productName) && !productVersion.contains("MariaDB");
	}

	@Override
	@Nullable String unsupportedVersion(String productVersion) {
		Matcher version = MAJOR_VERSION.matcher(productVersion);
		if (version.find() && Integer.parseInt(version.group(1)) < 8) {
			return "the mysql dialect is made and tested for MySQL 8.0 or later (MySQL 5.7 reached its end of life "
					+ "in 2023)";
		}
		return null;
	}

	/**
	 * None: MySQL sets {@code innodb_lock_wait_timeout} for a whole session only (8.0.12
	 * refuses the hint {@code SET_VAR(innodb_lock_wait_timeout=n)}: "cannot be set using
	 * SET_VAR hint"), and a {@code SET} before and after each operation would cost two
	 * round trips, on the application's pooled connection; a statement waits for a row as
	 * long as the statement timeout lets it.
	 */
	@Override
	long longestRowWaitSeconds() {
		return 0;
	}

}
