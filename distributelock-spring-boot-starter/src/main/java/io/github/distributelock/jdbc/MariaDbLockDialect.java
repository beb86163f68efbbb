package io.github.distributelock.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributelock.jdbc.JdbcRowLockWaits.Bounded;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB 10.5 or later: {@code INSERT ... ON DUPLICATE KEY UPDATE} with conditional
 * assignments and {@code RETURNING}, fencing tokens from a real sequence: one statement
 * per attempt. MySQL has neither, and a dialect of its own.
 */
final class MariaDbLockDialect extends JdbcLockDialect {

	/** The server's own version; MySQL drivers put "5.5.5-" before it. */
	private static final Pattern MARIADB_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB");

	/**
	 * The longest bounded wait for a row: a caller with more time left runs the plain
	 * statement, bounded by the statement timeout (10 s by default).
	 */
	static final int LONGEST_ROW_WAIT_SECONDS = 30;

	@Override
	String name() {
		return "mariadb";
	}

	@Override
	String database() {
		return "MariaDB 10.5 or later";
	}

	@Override
	String productName() {
		return "MySQL";
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "MariaDB".equalsIgnoreCase(productName)
				|| ("MySQL".equalsIgnoreCase(productName) && productVersion.contains("MariaDB"));
	}

	@Override
	@Nullable String unsupportedVersion(String productVersion) {
		Matcher version = MARIADB_VERSION.matcher(productVersion);
		if (version.find()) {
			int major = Integer.parseInt(version.group(1));
			int minor = Integer.parseInt(version.group(2));
			if (major < 10 || (major == 10 && minor < 5)) {
				return "MariaDB before 10.5 has no INSERT ... RETURNING";
			}
		}
		return null;
	}

	@Override
	long longestRowWaitSeconds() {
		return LONGEST_ROW_WAIT_SECONDS;
	}

	/**
	 * MariaDB counts the wait in whole seconds and takes it as a literal
	 * ({@code SET STATEMENT innodb_lock_wait_timeout=n FOR ...}): the variants are a
	 * fixed set made once, one per second, chosen by the time left rounded up; no time is
	 * ever formatted into a statement.
	 */
	@Override
	Bounded rowWaitBounded(String file, LockStatement plain, String tableName) {
		List<LockStatement> variants = new ArrayList<>(LONGEST_ROW_WAIT_SECONDS);
		for (int seconds = 1; seconds <= LONGEST_ROW_WAIT_SECONDS; seconds++) {
			String prefix = "SET STATEMENT innodb_lock_wait_timeout=" + seconds + " FOR ";
			variants.add(plain.edited((sql) -> prefix + sql));
		}
		return Bounded.bySeconds(plain, variants);
	}

}
