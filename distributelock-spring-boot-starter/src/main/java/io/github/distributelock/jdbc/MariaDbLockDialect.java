package io.github.distributelock.jdbc;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * MariaDB 10.5 or later: {@code INSERT ... ON DUPLICATE KEY UPDATE} with conditional
 * assignments and {@code RETURNING}, fencing tokens from a real sequence: one statement
 * per attempt. MySQL has neither, and a dialect of its own.
 */
final class MariaDbLockDialect extends JdbcLockDialect {

	/** The server's own version; MySQL drivers put "5.5.5-" before it. */
	private static final Pattern MARIADB_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB");

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

}
