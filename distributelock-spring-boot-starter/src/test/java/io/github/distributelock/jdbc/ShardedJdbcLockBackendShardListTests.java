package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The shard list each database of a sharded lock table records, checked at every build on
 * every dialect at once (each test on tables of its own): a first list is recorded,
 * another is refused naming both until the locks are said to be drained, and recording a
 * list raises every database's fencing tokens above the largest drawn in any.
 */
class ShardedJdbcLockBackendShardListTests {

	private static final AtomicInteger tables = new AtomicInteger();

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension(
			JdbcTestDatabase.DIALECTS.toArray(String[]::new));

	private final Closeables closeables = new Closeables();

	private String table;

	@BeforeEach
	void newTable() {
		this.table = "shard_list_" + tables.incrementAndGet();
	}

	@AfterEach
	void closeAll() throws Exception {
		this.closeables.close();
	}

	@Test
	void firstBuildRecordsTheListInEveryDatabaseAndTheSameListBuildsAgain() {
		List<String> dialects = JdbcTestDatabase.DIALECTS;
		build(dialects, names(dialects), false);
		for (int i = 0; i < dialects.size(); i++) {
			assertThat(recorded(dialects.get(i))).containsEntry("shard_index", i)
				.containsEntry("shard_count", dialects.size())
				.containsEntry("shard_names", String.join(", ", names(dialects)));
		}
		assertThat(build(dialects, names(dialects), false).shards()).containsOnlyKeys(names(dialects));
	}

	@Test
	void addedShardIsRefusedNamingBothListsUntilTheLocksAreSaidToBeDrained() {
		build(List.of("postgresql", "mariadb"), List.of("a", "b"), false);
		assertThatExceptionOfType(LockShardsChangedException.class)
			.isThrownBy(() -> build(List.of("postgresql", "mariadb", "h2"), List.of("a", "b", "c"), false))
			.withMessage("The lock shards [a, b, c] differ from the list recorded in their databases, [a, b] "
					+ "(a records that it is shard 1 of 2, b records that it is shard 2 of 2, c records none): keys "
					+ "would move to other databases while locks may be held under the recorded list")
			.satisfies((ex) -> {
				assertThat(ex.getShards()).containsExactly("a", "b", "c");
				assertThat(ex.getRecorded()).isEqualTo("[a, b]");
			});
		build(List.of("postgresql", "mariadb", "h2"), List.of("a", "b", "c"), true);
		assertThat(recorded("h2")).containsEntry("shard_index", 2).containsEntry("shard_count", 3);
		assertThat(recorded("postgresql")).containsEntry("shard_names", "a, b, c");
		build(List.of("postgresql", "mariadb", "h2"), List.of("a", "b", "c"), false);
	}

	@Test
	void swappedDatabasesAreRefusedEvenUnderTheSameNames() {
		build(List.of("postgresql", "h2"), List.of("a", "b"), false);
		assertThatExceptionOfType(LockShardsChangedException.class)
			.isThrownBy(() -> build(List.of("h2", "postgresql"), List.of("a", "b"), false))
			.withMessageContaining("The lock shards [a, b] differ from the list recorded in their databases, [a, b] "
					+ "(a records that it is shard 2 of 2, b records that it is shard 1 of 2)");
	}

	@Test
	void renamedShardsInTheirPlacesAreRecordedWithoutBeingRefused() {
		build(List.of("postgresql", "h2"), List.of("a", "b"), false);
		build(List.of("postgresql", "h2"), List.of("primary", "secondary"), false);
		assertThat(recorded("h2")).containsEntry("shard_names", "primary, secondary");
	}

	@Test
	void noRecordedListIsRefusedWhileADatabaseHoldsLocks() {
		JdbcLockBackend unsharded = backend("mariadb");
		unsharded.createSchema();
		assertThat(Backends.tryAcquire(unsharded, "held.by.an.unsharded.instance", "owner", Duration.ofMinutes(1))
			.acquired()).isTrue();
		assertThatExceptionOfType(LockShardsChangedException.class)
			.isThrownBy(() -> build(List.of("postgresql", "mariadb"), List.of("a", "b"), false))
			.withMessage("The lock shards [a, b] have no shard list recorded in their databases, but the lock table "
					+ "of shard b holds 1 lock now: instances that use it without these shards may be running, and "
					+ "keys would move to other databases while they hold locks")
			.satisfies((ex) -> assertThat(ex.getRecorded()).isEqualTo("none"));
		assertThat(Backends.release(unsharded, "held.by.an.unsharded.instance", "owner")).isTrue();
		build(List.of("postgresql", "mariadb"), List.of("a", "b"), false);
	}

	/**
	 * Two instances of a first list starting at once: one has recorded it in some
	 * databases only when the other reads the records.
	 */
	@Test
	void halfRecordedSameListIsCompletedAndAHalfRecordedOtherListRefused() {
		List<String> dialects = JdbcTestDatabase.DIALECTS;
		List<JdbcLockBackend> shards = new ArrayList<>();
		for (String dialect : dialects) {
			JdbcLockBackend shard = backend(dialect);
			shard.createSchema();
			shard.shardRecord().createTable();
			shards.add(shard);
		}
		shards.get(0)
			.shardRecord()
			.write(new JdbcLockShardRecord.Recorded(0, dialects.size(), String.join(", ", names(dialects))), true);
		build(dialects, names(dialects), false);
		for (int i = 0; i < dialects.size(); i++) {
			assertThat(recorded(dialects.get(i))).containsEntry("shard_index", i)
				.containsEntry("shard_count", dialects.size());
		}
		newTable();
		JdbcLockBackend first = backend("h2");
		first.createSchema();
		first.shardRecord().createTable();
		first.shardRecord().write(new JdbcLockShardRecord.Recorded(0, 3, "a, b, c"), true);
		assertThatExceptionOfType(LockShardsChangedException.class)
			.isThrownBy(() -> build(List.of("h2", "postgresql"), List.of("a", "b"), false))
			.withMessageContaining("The lock shards [a, b] differ from the list recorded in their databases, "
					+ "[a, b, c] (a records that it is shard 1 of 3, b records none)");
	}

	/**
	 * Two instances of a first list starting at once both raise the tokens: the one that
	 * read them first may raise last, with a floor that the other has passed since.
	 */
	@Test
	void lateRaiseWithAStaleFloorNeverLowersTheTokens() {
		for (String dialect : JdbcTestDatabase.DIALECTS) {
			JdbcLockBackend backend = backend(dialect);
			backend.createSchema();
			long highest = 0;
			for (int n = 0; n < 5; n++) {
				AcquireResult taken = Backends.tryAcquire(backend, "drawn." + n, "owner", Duration.ofSeconds(30));
				highest = Math.max(highest, taken.fencingToken());
				assertThat(Backends.release(backend, "drawn." + n, "owner")).isTrue();
			}
			backend.shardRecord().raiseTokensAbove(highest - 3);
			AcquireResult next = Backends.tryAcquire(backend, "after.raise", "owner", Duration.ofSeconds(30));
			assertThat(next.fencingToken()).as("the next token in %s", dialect).isGreaterThan(highest);
		}
	}

	/**
	 * A lock table used without shards on a database of a sharded one would lock keys
	 * that the sharded instances hold in other databases.
	 */
	@Test
	void backendWithoutShardsIsRefusedOnADatabaseThatRecordsAListOfSeveral() {
		List<String> dialects = JdbcTestDatabase.DIALECTS;
		for (String dialect : dialects) {
			JdbcLockBackend alone = backend(dialect);
			alone.createSchema();
			alone.checkNoShardList();
		}
		build(dialects, names(dialects), false);
		for (int i = 0; i < dialects.size(); i++) {
			String dialect = dialects.get(i);
			assertThatExceptionOfType(LockShardsChangedException.class).isThrownBy(backend(dialect)::checkNoShardList)
				.withMessage("The lock table " + this.table + " is used without shards, but its database records the "
						+ "shard list [" + String.join(", ", names(dialects)) + "], in which it is shard " + (i + 1)
						+ " of " + dialects.size() + ": instances of that list keep most keys in other databases, "
						+ "where a lock taken here does not exclude their holders")
				.satisfies((ex) -> assertThat(ex.getShards()).isEmpty());
		}
		newTable();
		build(List.of("postgresql"), List.of("alone"), false);
		backend("postgresql").checkNoShardList();
	}

	@Test
	void missingRecordTableIsNamed() {
		JdbcLockBackend shard = backend("postgresql");
		shard.createSchema();
		assertThatIllegalStateException().isThrownBy(() -> ShardedJdbcLockBackend.builder().shard("a", shard).build())
			.withMessageStartingWith("The table " + this.table + "_shards, which records the shard list, cannot be "
					+ "read in lock shard a: ");
	}

	/**
	 * Keys of one database with tokens far ahead of another's move to it: recording the
	 * new list raises every database's tokens above the largest, so each key's tokens
	 * keep growing wherever it moves.
	 */
	@Test
	void recordingAListRaisesEveryDatabasesTokensAboveTheLargestDrawn() {
		List<String> dialects = JdbcTestDatabase.DIALECTS;
		List<JdbcLockBackend> alone = new ArrayList<>();
		long largest = 0;
		for (int i = 0; i < dialects.size(); i++) {
			JdbcLockBackend backend = backend(dialects.get(i));
			backend.createSchema();
			alone.add(backend);
			// Each database's tokens run further ahead than the one before.
			for (int n = 0; n <= 5 * i; n++) {
				AcquireResult taken = Backends.tryAcquire(backend, "ahead." + n, "owner", Duration.ofSeconds(30));
				largest = Math.max(largest, taken.fencingToken());
				assertThat(Backends.release(backend, "ahead." + n, "owner")).isTrue();
			}
		}
		build(dialects, names(dialects), false);
		for (JdbcLockBackend backend : alone) {
			AcquireResult next = Backends.tryAcquire(backend, "after.recording", "owner", Duration.ofSeconds(30));
			assertThat(next.fencingToken()).as("the next token in %s", backend.dialect()).isGreaterThan(largest);
		}
	}

	private ShardedJdbcLockBackend build(List<String> dialects, List<String> names, boolean drained) {
		ShardedJdbcLockBackend.Builder builder = ShardedJdbcLockBackend.builder()
			.createSchema(true)
			.shardsChangedDrained(drained);
		for (int i = 0; i < dialects.size(); i++) {
			builder.shard(names.get(i), backend(dialects.get(i)));
		}
		return this.closeables.add(builder.build());
	}

	private JdbcLockBackend backend(String dialect) {
		HikariDataSource dataSource = this.closeables.add(databases.get(dialect).newDataSource());
		return this.closeables.add(new JdbcLockBackend(dataSource, this.table, null, Clock.systemUTC(),
				JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION));
	}

	private Map<String, Object> recorded(String dialect) {
		Map<String, Object> row = databases.get(dialect)
			.jdbcTemplate()
			.queryForMap("SELECT shard_index, shard_count, shard_names FROM " + this.table + "_shards WHERE id = 1");
		// Column labels come back in upper case from H2.
		Map<String, Object> lowerCase = new LinkedHashMap<>();
		row.forEach((column, value) -> lowerCase.put(column.toLowerCase(Locale.ROOT), value));
		return lowerCase;
	}

	private static List<String> names(List<String> dialects) {
		return dialects.stream().map((dialect) -> "shard-" + dialect).toList();
	}

}
