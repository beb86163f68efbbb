package io.github.distributelock.jdbc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.zip.CRC32;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.ShardedLockBackend;
import io.github.distributelock.core.StoreClientThreads;

/**
 * A lock table spread over several databases, its shards: each key lives in the database
 * its hash picks, {@linkplain #shardIndex(String, int) CRC32 of its UTF-8 bytes modulo
 * the number of shards}, and every call for that key goes to that shard's
 * {@link JdbcLockBackend}, with its statements, leases, fencing tokens and waits. The
 * shards may run different databases (PostgreSQL and MariaDB, say).
 * <p>
 * <b>Note:</b> the shard of a key depends on the number and order of the shards, so
 * changing them moves keys to other databases, where a lock held under the old list does
 * not exclude a holder under the new one. Each database records the list in the table
 * {@code
 *
<table>
 * _shards}, and {@link Builder#build()} refuses another list (with a
 * {@link LockShardsChangedException}) unless told that the locks were drained.
 *
 * @since 1.0.0
 */
public class ShardedJdbcLockBackend
		implements LockBackend, LockStoreProbe, ShardedLockBackend, StoreClientThreads, AutoCloseable {

	private final List<String> names;

	private final List<JdbcLockBackend> shards;

	private ShardedJdbcLockBackend(List<String> names, List<JdbcLockBackend> shards) {
		this.names = List.copyOf(names);
		this.shards = List.copyOf(shards);
	}

	/**
	 * A builder of a sharded lock table.
	 * @return a builder with no shard
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * The shard of a key: the CRC32 of the key's UTF-8 bytes, an unsigned 32-bit number,
	 * modulo the number of shards. Stable across versions, JVMs and platforms.
	 * @param key the lock key as the caller gave it
	 * @param shardCount the number of shards, at least one
	 * @return the index of the shard, from 0
	 */
	public static int shardIndex(String key, int shardCount) {
		CRC32 crc = new CRC32();
		crc.update(key.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % shardCount);
	}

	@Override
	public String name() {
		return "jdbc";
	}

	/**
	 * The shards by name, in order.
	 * @return each shard's backend
	 */
	public Map<String, JdbcLockBackend> shards() {
		Map<String, JdbcLockBackend> shards = new LinkedHashMap<>();
		for (int i = 0; i < this.names.size(); i++) {
			shards.put(this.names.get(i), this.shards.get(i));
		}
		return Collections.unmodifiableMap(shards);
	}

	/**
	 * The backend of the shard that holds a key.
	 * @param key the lock key
	 * @return the shard's backend
	 */
	public JdbcLockBackend shard(String key) {
		return this.shards.get(shardIndex(key, this.shards.size()));
	}

	@Override
	public String shardOf(String key) {
		return this.names.get(shardIndex(key, this.shards.size()));
	}

	@Override
	public Map<String, LockStoreProbe> shardProbes() {
		return Collections.unmodifiableMap(new LinkedHashMap<>(shards()));
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		return shard(claim.key()).tryAcquire(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return shard(claim.key()).renew(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return shard(claim.key()).release(claim);
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		return shard(claim.key()).awaitRelease(claim, lastAttempt, deadline);
	}

	/** Every shard's statement threads deliver answers of this backend. */
	@Override
	public boolean deliversAnswersOn(Thread thread) {
		for (JdbcLockBackend shard : this.shards) {
			if (shard.deliversAnswersOn(thread)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Probes each shard (a read of one key's lease in its lock table), and fails naming
	 * every shard that did not answer.
	 */
	@Override
	public void probe() {
		List<String> failed = new ArrayList<>();
		RuntimeException failure = null;
		for (int i = 0; i < this.shards.size(); i++) {
			try {
				this.shards.get(i).probe();
			}
			catch (RuntimeException ex) {
				failed.add(this.names.get(i) + " (" + ex.getMessage() + ")");
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw new IllegalStateException("Lock shards down: " + String.join(", ", failed), failure);
		}
	}

	/**
	 * Deletes, in every shard, the rows of locks released longer ago than the shard's
	 * retention.
	 * @return how many rows were deleted
	 */
	public int deleteReleasedRows() {
		return this.shards.stream().mapToInt(JdbcLockBackend::deleteReleasedRows).sum();
	}

	/**
	 * Closes every shard's backend.
	 */
	@Override
	public void close() {
		this.shards.forEach(JdbcLockBackend::close);
	}

	/**
	 * Builds a {@link ShardedJdbcLockBackend} from one {@link JdbcLockBackend} per
	 * database, in order, and checks the shard list recorded in the databases.
	 *
	 * @since 1.0.0
	 */
	public static final class Builder {

		/** The longest table name whose {@code _shards} table fits an identifier. */
		private static final int LONGEST_TABLE_NAME = 56;

		private final List<String> names = new ArrayList<>();

		private final List<JdbcLockBackend> shards = new ArrayList<>();

		private boolean createSchema;

		private boolean shardsChangedDrained;

		private Builder() {
		}

		/**
		 * Adds the next shard. The order matters: it decides the shard of every key.
		 * @param name the shard's name in metrics, health and messages, such as the name
		 * of its {@code DataSource} bean
		 * @param backend the backend on the shard's database
		 * @return this builder
		 */
		public Builder shard(String name, JdbcLockBackend backend) {
			if (name.isBlank() || name.contains(",")) {
				throw new IllegalArgumentException("The lock shard name '" + name + "' is blank or has a comma");
			}
			if (this.names.contains(name) || this.shards.contains(backend)) {
				throw new IllegalArgumentException("The lock shard '" + name + "' is listed twice");
			}
			this.names.add(name);
			this.shards.add(backend);
			return this;
		}

		/**
		 * Whether to create each shard's lock table, sequence and {@code
		 *
		<table>
		 * _shards} table unless they exist, before the check.
		 * @param createSchema whether to create them
		 * @return this builder
		 */
		public Builder createSchema(boolean createSchema) {
			this.createSchema = createSchema;
			return this;
		}

		/**
		 * Whether to accept a shard list that differs from the recorded one, and record
		 * it: only once no lock is held under the old list (every instance stopped, or
		 * its locks released or their leases run out).
		 * @param shardsChangedDrained whether the locks were drained
		 * @return this builder
		 */
		public Builder shardsChangedDrained(boolean shardsChangedDrained) {
			this.shardsChangedDrained = shardsChangedDrained;
			return this;
		}

		/**
		 * Creates the schema if asked, then checks the shard list against the one the
		 * databases recorded, recording it at the first start. A database that cannot be
		 * reached is not checked (a WARN says so).
		 * @return the backend
		 * @throws LockShardsChangedException if the list differs from the recorded one,
		 * or none is recorded while the databases hold locks, and the locks were not said
		 * to be drained
		 * @throws LockShardsShareDatabaseException if two shards are one database
		 * @throws IllegalStateException if a database has no {@code <table>_shards} table
		 * @throws IllegalArgumentException if there is no shard, or a table name is too
		 * long for its {@code _shards} table
		 */
		public ShardedJdbcLockBackend build() {
			if (this.shards.isEmpty()) {
				throw new IllegalArgumentException("A sharded lock table needs at least one shard");
			}
			if (String.join(", ", this.names).length() > 2000) {
				throw new IllegalArgumentException("The lock shard names are longer than the 2000 characters "
						+ "their record holds: " + this.names);
			}
			List<JdbcLockShardRecord> records = new ArrayList<>();
			for (JdbcLockBackend shard : this.shards) {
				String table = shard.tableName().substring(shard.tableName().indexOf('.') + 1);
				if (table.length() > LONGEST_TABLE_NAME) {
					throw new IllegalArgumentException("The lock table name '" + table + "' is longer than the "
							+ LONGEST_TABLE_NAME + " characters a sharded lock table allows, so that its "
							+ "'_shards' table's name stays a valid identifier");
				}
				records.add(shard.shardRecord());
			}
			refuseSharedDatabases(records);
			if (this.createSchema) {
				for (int i = 0; i < this.shards.size(); i++) {
					this.shards.get(i).createSchema();
					records.get(i).createTable();
				}
			}
			new JdbcLockShardCheck(this.names, records).check(this.shardsChangedDrained);
			return new ShardedJdbcLockBackend(this.names, this.shards);
		}

		/**
		 * Refuses two shards on one lock table of one database (the same JDBC URL and
		 * user), whose one record can hold only one place in the list; a shard that
		 * cannot be reached is left to the check of the list.
		 */
		private void refuseSharedDatabases(List<JdbcLockShardRecord> records) {
			Map<String, String> shardOfTable = new LinkedHashMap<>();
			for (int i = 0; i < records.size(); i++) {
				String database = records.get(i).database();
				if (database == null) {
					continue;
				}
				String other = shardOfTable.putIfAbsent(database + " " + records.get(i).tableName(), this.names.get(i));
				if (other != null) {
					throw new LockShardsShareDatabaseException(
							"The lock shards " + other + " and " + this.names.get(i)
									+ " are the same database (the same JDBC URL and user), where "
									+ "they would share one lock table: each shard needs a database of its own",
							List.of(other, this.names.get(i)));
				}
			}
		}

	}

}
