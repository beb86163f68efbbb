package io.github.distributelock.jdbc;

/**
 * PostgreSQL: {@code INSERT ... ON CONFLICT ... DO UPDATE ... WHERE} inside a
 * data-modifying {@code WITH}, so one statement both tries and reads the holder's lease.
 */
final class PostgresLockDialect extends JdbcLockDialect {

	@Override
	String name() {
		return "postgresql";
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "PostgreSQL".equalsIgnoreCase(productName);
	}

}
