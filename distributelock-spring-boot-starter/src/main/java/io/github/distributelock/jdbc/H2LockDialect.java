package io.github.distributelock.jdbc;

/**
 * H2 2.x: a conditional {@code MERGE INTO ... USING} read through {@code FINAL TABLE}, as
 * H2 has no {@code ON CONFLICT ... DO UPDATE}.
 */
final class H2LockDialect extends JdbcLockDialect {

	@Override
	String name() {
		return "h2";
	}

	@Override
	String database() {
		return "H2 2.x";
	}

	@Override
	String productName() {
		return "H2";
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "H2".equalsIgnoreCase(productName);
	}

}
