package io.github.distributelock.fault;

import java.util.stream.Stream;

import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hung database server ({@link AbstractJdbcHungServerTests}) on each database with a
 * port, with the driver's socket timeout set and without it, all but MariaDB without it
 * ({@link MariaDbHungServerWithoutSocketTimeoutTests}).
 */
@ParameterizedClass(name = "{0}, socketTimeout set: {1}")
@MethodSource("servers")
class JdbcHungServerTests extends AbstractJdbcHungServerTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@Parameter(0)
	String dialect;

	@Parameter(1)
	boolean socketTimeout;

	static Stream<Arguments> servers() {
		return JdbcTestDatabase.DIALECTS.stream()
			.filter((dialect) -> !dialect.equals("h2"))
			.flatMap((dialect) -> Stream.of(Arguments.of(dialect, true), Arguments.of(dialect, false)))
			.filter((server) -> !server.get()[0].equals("mariadb") || (boolean) server.get()[1]);
	}

	@Override
	protected String dialect() {
		return this.dialect;
	}

	@Override
	protected boolean socketTimeout() {
		return this.socketTimeout;
	}

	@Override
	protected JdbcTestDatabase database() {
		return databases.get(this.dialect);
	}

}
