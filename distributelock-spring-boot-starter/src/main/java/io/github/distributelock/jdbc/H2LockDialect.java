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

	@Override
	boolean matches(String productName, String productVersion) {
		return "H2".equalsIgnoreCase(productName);
	}

}
