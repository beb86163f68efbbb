package io.github.distributelock.jdbc;

import io.github.distributelock.jdbc.JdbcRowLockWaits.Bounded;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

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
	String database() {
		return "PostgreSQL";
	}

	@Override
	String productName() {
		return "PostgreSQL";
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "PostgreSQL".equalsIgnoreCase(productName);
	}

	/**
	 * Whether PostgreSQL's JDBC driver, whose connections can wait for notifications, is
	 * on the classpath.
	 */
	static boolean hasDriver() {
		return ClassUtils.isPresent("org.postgresql.PGConnection", PostgresLockDialect.class.getClassLoader());
	}

	/**
	 * PostgreSQL's character types cannot hold NUL: the server refuses the whole
	 * statement, so such a key or owner is refused before it is sent.
	 */
	@Override
	@Nullable String unstorable(String text) {
		return (text.indexOf('\u0000') >= 0) ? "PostgreSQL cannot store the NUL character (U+0000) in text" : null;
	}

	/**
	 * {@code lock_timeout} holds at most 2^31 - 1 ms (about 24.8 days), and refuses the
	 * whole statement past it: a caller with more time left runs the plain statement.
	 */
	@Override
	long longestRowWaitSeconds() {
		return Integer.MAX_VALUE / 1000;
	}

	/**
	 * Its variant {@code *-bounded.sql} sets a transaction-local {@code lock_timeout} in
	 * the statement's own {@code VALUES}, from the parameter {@code :lock_wait}.
	 */
	@Override
	Bounded rowWaitBounded(String file, LockStatement plain, String tableName) {
		return Bounded.byParameter(plain,
				LockStatement.load(this, file.replaceFirst("\\.sql$", "-bounded.sql"), tableName));
	}

	/**
	 * pgjdbc cancels a statement only while it runs, and the statement's thread waits for
	 * a cancel in flight before it goes on; its own {@code setQueryTimeout} schedules a
	 * timer task per statement, which measurably slows every lock call.
	 */
	@Override
	StatementBound statementBound() {
		return StatementBound.CANCEL;
	}

}
