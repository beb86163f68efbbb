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

	/**
	 * H2 runs in the calling thread, and its wait for a row lock returns on an interrupt
	 * as on a lock timeout, clearing the interrupt.
	 */
	@Override
	boolean endsLockWaitsOnInterrupt() {
		return true;
	}

	/**
	 * H2 ends a wait for a row lock at its {@code LOCK_TIMEOUT} (2 s by default), and
	 * answers it as a lock held by another; a cancel does not end that wait, and its
	 * statement timeout is a setting of the session, which would stay on the
	 * application's pooled connection.
	 */
	@Override
	StatementBound statementBound() {
		return StatementBound.NONE;
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "H2".equalsIgnoreCase(productName);
	}

}
