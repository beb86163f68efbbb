package io.github.distributelock.aop;

import java.util.UUID;
import java.util.function.Predicate;

import io.github.distributelock.reactive.BlockHoundExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reactive and asynchronous {@code @Lockable} methods on JDBC (H2), whose statements run
 * on the backend's pool, never on a Reactor thread.
 * <p>
 * Runs with BlockHound installed ({@link BlockHoundExtension}): a blocking call on a
 * Reactor or Netty thread, in the starter or the store's client, fails the test.
 */
@Tag("blockhound")
@ExtendWith(BlockHoundExtension.class)
class JdbcReactiveLockableTests extends AbstractReactiveLockableTests {

	private static final String URL = "jdbc:h2:mem:reactive-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "spring.datasource.url=" + URL,
					"spring.datasource.username=sa");
	}

	@Override
	protected Predicate<String> lockedInStore(AssertableApplicationContext context) {
		JdbcTemplate store = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
		return (key) -> {
			Integer rows = store.queryForObject(
					"SELECT COUNT(*) FROM distributelock WHERE lock_key = ? AND expires_at > CURRENT_TIMESTAMP",
					Integer.class, key);
			return rows != null && rows > 0;
		};
	}

}
