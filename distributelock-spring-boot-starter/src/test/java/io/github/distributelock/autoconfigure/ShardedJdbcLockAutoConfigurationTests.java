package io.github.distributelock.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.actuate.DistributeLocksEndpoint;
import io.github.distributelock.actuate.DistributeLocksEndpoint.HeldLockDescriptor;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.ShardedJdbcLockBackend;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC backend on several {@code DataSource} beans named by
 * {@code distributelock.jdbc.shards}, on in-memory H2 databases that outlive each context
 * (so that a later context finds the list an earlier one recorded).
 */
class ShardedJdbcLockAutoConfigurationTests {

	private final String run = UUID.randomUUID().toString();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
				DistributeLockHealthContributorAutoConfiguration.class, DistributeLocksEndpointAutoConfiguration.class,
				DistributeLockObservationAutoConfiguration.class))
		.withUserConfiguration(ThreeDatabases.class)
		.withPropertyValues("distributelock.type=jdbc", "test.run=" + this.run);

	@Test
	void backendOnTheNamedDataSourcesKeepsEachKeyInTheShardItsHashPicks() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1, ds2").run((context) -> {
			assertThat(context).hasSingleBean(LockBackend.class);
			ShardedJdbcLockBackend backend = context.getBean(ShardedJdbcLockBackend.class);
			assertThat(backend.shards()).containsOnlyKeys("ds1", "ds2");
			DistributeLock lock = context.getBean(DistributeLock.class);
			for (String key : new String[] { "order.1", "order.2", "order.3", "order.4" }) {
				try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					String shard = backend.shardOf(key);
					assertThat(shard).isEqualTo((ShardedJdbcLockBackend.shardIndex(key, 2) == 0) ? "ds1" : "ds2");
					assertThat(rows(context, shard, key)).isOne();
					assertThat(rows(context, shard.equals("ds1") ? "ds2" : "ds1", key)).isZero();
				}
			}
		});
	}

	@Test
	void shardsCanBeAnIndexedList() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards[0]=ds2", "distributelock.jdbc.shards[1]=ds3")
			.run((context) -> assertThat(context.getBean(ShardedJdbcLockBackend.class).shards()).containsOnlyKeys("ds2",
					"ds3"));
	}

	@Test
	void shardThatIsNoDataSourceBeanFailsAtStartupListingTheBeans() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,dsx")
			.run((context) -> assertFailure(context,
					"distributelock.jdbc.shards names 'dsx', which is not a DataSource bean.",
					"the application's DataSource beans are: ds1, ds2, ds3."));
	}

	@Test
	void shardListedTwiceFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds1")
			.run((context) -> assertFailure(context, "distributelock.jdbc.shards names 'ds1' twice.",
					"List the DataSource bean of each shard once."));
	}

	@Test
	void twoShardsOnOneDatabaseFailAtStartupSayingSo() {
		this.contextRunner.withBean("sameAsDs1", Switchable.class, () -> new Switchable("ds1", this.run))
			.withPropertyValues("distributelock.jdbc.shards=ds1,sameAsDs1")
			.run((context) -> assertFailure(context,
					"The lock shards ds1 and sameAsDs1 are the same database (the same JDBC URL and user), where they "
							+ "would share one lock table: each shard needs a database of its own.",
					"Point the DataSource beans ds1 and sameAsDs1 at databases of their own"));
	}

	@Test
	void changedShardListIsRefusedAtStartupUntilTheLocksAreSaidToBeDrained() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds3")
			.run((context) -> assertFailure(context,
					"The lock shards [ds1, ds2, ds3] differ from the list recorded in their databases, [ds1, ds2] "
							+ "(ds1 records that it is shard 1 of 2, ds2 records that it is shard 2 of 2, ds3 records "
							+ "none): keys would move to other databases while locks may be held under the recorded "
							+ "list.",
					"Set distributelock.jdbc.shards back to [ds1, ds2]; or, to change the list, stop every "
							+ "instance that uses these databases, let their locks be released (or their leases run "
							+ "out), and start once with distributelock.jdbc.shards-changed-drained=true, which "
							+ "records the new list (then remove it)."));
		this.contextRunner
			.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds3",
					"distributelock.jdbc.shards-changed-drained=true")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds3")
			.run((context) -> assertThat(context.getBean(ShardedJdbcLockBackend.class).shards()).hasSize(3));
	}

	/**
	 * An instance without shards on one database of a sharded lock table would lock keys
	 * that instances with shards hold in the other databases.
	 */
	@Test
	void instanceWithoutShardsOnADatabaseThatRecordsAShardListIsRefusedUntilAListOfOneIsRecorded() {
		ApplicationContextRunner withoutShards = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withBean("ds1", Switchable.class, () -> new Switchable("ds1", this.run))
			.withPropertyValues("distributelock.type=jdbc");
		withoutShards.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2")
			.run((context) -> assertThat(context).hasNotFailed());
		withoutShards.run((context) -> assertFailure(context,
				"The lock table distributelock is used without shards, but its database records the shard list "
						+ "[ds1, ds2], in which it is shard 1 of 2: instances of that list keep most keys in other "
						+ "databases, where a lock taken here does not exclude their holders.",
				"Set distributelock.jdbc.shards to the DataSource beans of the shards [ds1, ds2], in that order"));
		this.contextRunner
			.withPropertyValues("distributelock.jdbc.shards=ds1", "distributelock.jdbc.shards-changed-drained=true")
			.run((context) -> assertThat(context).hasNotFailed());
		withoutShards.run((context) -> assertThat(context).hasNotFailed());
	}

	/**
	 * The application's primary DataSource holds no lock: messages about the lock store
	 * name the shards, and the property that lists them.
	 */
	@Test
	void storeMessagesNameTheShardsRatherThanThePrimaryDataSource() {
		ApplicationContextRunner withPrimary = this.contextRunner
			.withBean("app", Switchable.class, () -> new Switchable("app", this.run), (bean) -> bean.setPrimary(true))
			.withPropertyValues("distributelock.jdbc.shards=ds2,ds3");
		withPrimary.run((context) -> assertThat(context.getBean(LockStoreMonitor.class).store()).isEqualTo(
				"jdbc at the shards ds2 (jdbc:h2:mem:ds2-" + this.run + "), ds3 (jdbc:h2:mem:ds3-" + this.run + ")"));
		withPrimary.withConfiguration(AutoConfigurations.of(DistributeLockStartupCheckAutoConfiguration.class))
			.withPropertyValues("test.ds3-down=true", "distributelock.jdbc.dialect=h2",
					"distributelock.startup-check=fail")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure())
					.isInstanceOfSatisfying(DistributeLockConfigurationException.class, (ex) -> {
						assertThat(ex.getDescription()).startsWith("Lock store jdbc at the shards ds2 (jdbc:h2:mem:ds2-"
								+ this.run + "), ds3 (jdbc:h2:mem:ds3-" + this.run + ") is unavailable at startup: "
								+ "Lock shards down: ds3 (");
						assertThat(ex.getAction()).contains("Start the lock store or correct its address "
								+ "(distributelock.jdbc.shards, and the DataSource beans it names: ds2, ds3)");
					});
			});
	}

	@Test
	void jdbcLockBackendCustomizersApplyToEveryShard() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2")
			.withBean("tenantTable", JdbcLockBackendCustomizer.class,
					() -> (settings) -> settings.setTableName("tenant_a_locks"))
			.run((context) -> {
				ShardedJdbcLockBackend backend = context.getBean(ShardedJdbcLockBackend.class);
				assertThat(backend.shards().values()).extracting(JdbcLockBackend::tableName)
					.containsOnly("tenant_a_locks");
			});
	}

	@Test
	void healthReportsEachShard() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds3").run((context) -> {
			DistributeLockHealthIndicator indicator = context.getBean(DistributeLockHealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("backend", "jdbc");
			assertThat(shards(up)).containsOnlyKeys("ds1", "ds3");
			assertThat(shards(up).get("ds3")).containsEntry("status", "UP").containsKey("roundTripMs");
			context.getBean("ds3", Switchable.class).down = true;
			Health down = indicator.health();
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(shards(down).get("ds1")).containsEntry("status", "UP");
			assertThat(shards(down).get("ds3")).containsEntry("status", "DOWN");
			assertThat((String) shards(down).get("ds3").get("error")).contains("ds3 is down for the test");
			assertThat(down.getDetails().get("error").toString()).contains("Lock shards down: ds3 (");
		});
	}

	@Test
	void metricsAndTheEndpointNameTheShardOfEachLock() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.withPropertyValues("distributelock.jdbc.shards=ds1,ds2",
					"management.endpoints.web.exposure.include=distributelocks")
			.run((context) -> {
				ShardedJdbcLockBackend backend = context.getBean(ShardedJdbcLockBackend.class);
				DistributeLock lock = context.getBean(DistributeLock.class);
				DistributeLocksEndpoint endpoint = context.getBean(DistributeLocksEndpoint.class);
				String key = "account.7";
				String shard = backend.shardOf(key);
				try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					HeldLockDescriptor held = endpoint.heldLocks().locks().get(0);
					assertThat(held.backend()).isEqualTo("jdbc");
					assertThat(held.shard()).isEqualTo(shard);
				}
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("distributelock.acquire")
					.tags("backend", "jdbc", "shard", shard, "result", "acquired")
					.timer()
					.count()).isOne();
				assertThat(meters.get("distributelock.hold")
					.tags("backend", "jdbc", "shard", shard, "outcome", "released")
					.timer()
					.count()).isOne();
			});
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> shards(Health health) {
		return (Map<String, Map<String, Object>>) health.getDetails().get("shards");
	}

	private static int rows(AssertableApplicationContext context, String dataSource, String key) {
		Integer rows = new JdbcTemplate(context.getBean(dataSource, DataSource.class))
			.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

	private static void assertFailure(AssertableApplicationContext context, String description, String action) {
		assertThat(context).hasFailed();
		assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOfSatisfying(DistributeLockConfigurationException.class, (ex) -> {
				assertThat(ex.getDescription()).isEqualTo(description);
				assertThat(ex.getAction()).contains(action);
			});
	}

	/** Three in-memory H2 databases of this test's run, as DataSource beans. */
	@Configuration(proxyBeanMethods = false)
	static class ThreeDatabases {

		@Bean
		Switchable ds1(org.springframework.core.env.Environment environment) {
			return new Switchable("ds1", environment.getProperty("test.run"));
		}

		@Bean
		Switchable ds2(org.springframework.core.env.Environment environment) {
			return new Switchable("ds2", environment.getProperty("test.run"));
		}

		@Bean
		Switchable ds3(org.springframework.core.env.Environment environment) {
			Switchable ds3 = new Switchable("ds3", environment.getProperty("test.run"));
			// Down from the start, for a test of the check at startup.
			ds3.down = environment.getProperty("test.ds3-down", Boolean.class, false);
			return ds3;
		}

	}

	/** An H2 pool that can be made to refuse connections, as a database that is down. */
	static class Switchable extends DelegatingDataSource implements AutoCloseable {

		private final String name;

		volatile boolean down;

		Switchable(String name, String run) {
			HikariDataSource pool = new HikariDataSource();
			pool.setJdbcUrl("jdbc:h2:mem:" + name + "-" + run + ";DB_CLOSE_DELAY=-1");
			pool.setMaximumPoolSize(4);
			this.name = name;
			setTargetDataSource(pool);
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (this.down) {
				throw new SQLException(this.name + " is down for the test");
			}
			return super.getConnection();
		}

		@Override
		public void close() {
			((HikariDataSource) obtainTargetDataSource()).close();
		}

	}

}
