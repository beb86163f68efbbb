package io.github.distributelock.fault;

import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hung MariaDB server ({@link AbstractJdbcHungServerTests}) without the driver's socket
 * timeout: the holder and a commit held by the network, which end once the connection is
 * aborted, but no caller whose statement goes into a server that answers nothing at all.
 * The driver's abort of a connection in use, closing the socket, reads what is left on
 * it, which waits for the statement's own read: the abort ends only once the server
 * answers, on every machine.
 */
class MariaDbHungServerWithoutSocketTimeoutTests extends AbstractJdbcHungServerTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("mariadb");

	@Override
	protected String dialect() {
		return "mariadb";
	}

	@Override
	protected boolean socketTimeout() {
		return false;
	}

	@Override
	protected JdbcTestDatabase database() {
		return databases.get("mariadb");
	}

	/**
	 * Not a test here (an override without annotations is none): the caller's abort would
	 * wait for the server to answer.
	 */
	@Override
	void callerBehindAHungServerFailsByItsDeadlineAndTheKeyIsTakenOnceItAnswers(boolean held) {
	}

}
