package io.github.distributelock.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.LockShardsChangedException;
import io.github.distributelock.jdbc.LockShardsShareDatabaseException;
import io.github.distributelock.jdbc.ShardedJdbcLockBackend;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.dao.DataAccessException;

/**
 * The JDBC backend on a lock table spread over several databases, when
 * {@code distributelock.jdbc.shards} names their {@code DataSource} beans. Imported by
 * {@link JdbcLockConfiguration}, so it is registered before, and replaces, the backend on
 * the single {@code DataSource}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(ShardedJdbcLockConfiguration.OnShards.class)
class ShardedJdbcLockConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockBackend.class)
	ShardedJdbcLockBackend shardedJdbcLockBackend(ListableBeanFactory beans, DistributeLockProperties properties,
			ObjectProvider<JdbcLockBackendCustomizer> customizers) {
		DistributeLockProperties.Jdbc jdbc = properties.getJdbc();
		Map<String, DataSource> dataSources = beans.getBeansOfType(DataSource.class);
		ShardedJdbcLockBackend.Builder builder = ShardedJdbcLockBackend.builder();
		List<JdbcLockBackend> created = new ArrayList<>();
		Set<String> named = new HashSet<>();
		boolean createSchema = true;
		try {
			for (String name : jdbc.getShards()) {
				DataSource dataSource = dataSource(name, dataSources, named);
				JdbcLockBackend shard = createBackend(name, dataSource, settings(jdbc, customizers));
				created.add(shard);
				builder.shard(name, shard);
				createSchema &= JdbcLockConfiguration.shouldCreateSchema(jdbc.getInitializeSchema(), dataSource);
			}
			return builder.createSchema(createSchema).shardsChangedDrained(jdbc.isShardsChangedDrained()).build();
		}
		catch (RuntimeException ex) {
			created.forEach(JdbcLockBackend::close);
			throw explained(ex);
		}
	}

	private static DataSource dataSource(String name, Map<String, DataSource> dataSources, Set<String> named) {
		DataSource dataSource = dataSources.get(name);
		if (dataSource == null) {
			throw new DistributeLockConfigurationException(
					"distributelock.jdbc.shards names '" + name + "', which is not a DataSource bean.",
					"Set distributelock.jdbc.shards to the names of the DataSource beans that hold the lock table, "
							+ "in order; the application's DataSource beans are: "
							+ String.join(", ", dataSources.keySet()) + ".");
		}
		if (!named.add(name)) {
			throw new DistributeLockConfigurationException("distributelock.jdbc.shards names '" + name + "' twice.",
					"List the DataSource bean of each shard once.");
		}
		return dataSource;
	}

	/**
	 * The settings of one shard: the properties, then the customizers, called once for
	 * each shard so that none shares another's settings object.
	 */
	private static JdbcLockBackendSettings settings(DistributeLockProperties.Jdbc jdbc,
			ObjectProvider<JdbcLockBackendCustomizer> customizers) {
		JdbcLockBackendSettings settings = new JdbcLockBackendSettings(jdbc);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(settings));
		return settings;
	}

	private static JdbcLockBackend createBackend(String name, DataSource dataSource, JdbcLockBackendSettings settings) {
		try {
			return JdbcLockConfiguration.createBackend(dataSource, settings);
		}
		catch (DistributeLockConfigurationException ex) {
			throw new DistributeLockConfigurationException("Lock shard '" + name + "': " + ex.getDescription(),
					ex.getAction().replace("spring.datasource.url", "the DataSource bean '" + name + "'"));
		}
	}

	private static RuntimeException explained(RuntimeException ex) {
		if (ex instanceof DistributeLockConfigurationException) {
			return ex;
		}
		if (ex instanceof LockShardsChangedException changed) {
			return new DistributeLockConfigurationException(changed.getMessage() + ".",
					"none".equals(changed.getRecorded())
							? "Stop the instances that use the lock table without these shards and let their locks be "
									+ "released (or their leases run out); if no lock is held any more, start once "
									+ "with distributelock.jdbc.shards-changed-drained=true, which records the list."
							: "Set distributelock.jdbc.shards back to " + changed.getRecorded() + "; or, to change "
									+ "the list, stop every instance that uses these databases, let their locks be "
									+ "released (or their leases run out), and start once with "
									+ "distributelock.jdbc.shards-changed-drained=true, which records the new list "
									+ "(then remove it).");
		}
		if (ex instanceof LockShardsShareDatabaseException shared) {
			return new DistributeLockConfigurationException(shared.getMessage() + ".",
					"Point the DataSource beans " + String.join(" and ", shared.getShards())
							+ " at databases of their own (another database, or another server), or list only one of "
							+ "them in distributelock.jdbc.shards.");
		}
		if (ex instanceof DataAccessException failure) {
			return new DistributeLockConfigurationException(
					"Could not create the lock tables of the shards: " + failure.getMostSpecificCause(),
					"Make sure every shard's database is reachable when the application starts, or create the "
							+ "tables yourself (docs/backends/jdbc.md has the DDL) and set "
							+ "distributelock.jdbc.initialize-schema=never.");
		}
		if (ex instanceof IllegalStateException) {
			return new DistributeLockConfigurationException(ex.getMessage() + ".",
					"Create the table in every shard's database (docs/backends/jdbc.md has the DDL), or set "
							+ "distributelock.jdbc.initialize-schema=always.");
		}
		if (ex instanceof IllegalArgumentException) {
			return new DistributeLockConfigurationException(ex.getMessage() + ".",
					"Set distributelock.jdbc.table-name to a plain identifier of at most 56 characters, optionally "
							+ "schema-qualified, and name each shard once.");
		}
		return ex;
	}

	/**
	 * Matches when {@code distributelock.jdbc.shards} lists at least one name, written as
	 * a comma-separated value or as an indexed list.
	 */
	static class OnShards extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			List<String> shards = Binder.get(context.getEnvironment())
				.bind("distributelock.jdbc.shards", Bindable.listOf(String.class))
				.orElse(List.of());
			return shards.isEmpty() ? ConditionOutcome.noMatch("distributelock.jdbc.shards is not set")
					: ConditionOutcome.match("distributelock.jdbc.shards is " + shards);
		}

	}

}
