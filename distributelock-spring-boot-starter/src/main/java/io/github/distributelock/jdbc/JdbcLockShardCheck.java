package io.github.distributelock.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.github.distributelock.jdbc.JdbcLockShardRecord.Recorded;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;

/**
 * The check a sharded lock table makes at startup: the shard list it was built with must
 * be the one its databases recorded, as a key's database depends on the number and order
 * of the shards. A first list is recorded (unless the databases hold locks: instances
 * without shards may be running); another list is refused unless the locks were drained,
 * and then recorded. Whenever a list is recorded, every database's fencing tokens are
 * raised above the largest any of them had drawn, so that a key that moves to another
 * database keeps getting larger tokens.
 */
final class JdbcLockShardCheck {

	private static final Log logger = LogFactory.getLog(JdbcLockShardCheck.class);

	private final List<String> names;

	private final List<JdbcLockShardRecord> records;

	private final String list;

	JdbcLockShardCheck(List<String> names, List<JdbcLockShardRecord> records) {
		this.names = names;
		this.records = records;
		this.list = "[" + String.join(", ", names) + "]";
	}

	/**
	 * Checks the recorded list, and records this one where it may.
	 * @param drained whether the user says that no lock is held under another list
	 * @throws LockShardsChangedException if the list differs from the recorded one, or
	 * none is recorded while locks are held, and the locks were not drained
	 */
	void check(boolean drained) {
		List<@Nullable Recorded> recorded = readAll();
		if (recorded == null) {
			return;
		}
		boolean none = recorded.stream().allMatch(Objects::isNull);
		boolean same = true;
		boolean renamed = false;
		for (int i = 0; i < this.names.size(); i++) {
			Recorded shard = recorded.get(i);
			same = same && shard != null && shard.sameShardAs(current(i));
			renamed = renamed || (shard != null && !shard.names().equals(current(i).names()));
		}
		if (same) {
			if (renamed) {
				logger.info("Renamed the lock shards to " + this.list + " in their databases; each database keeps "
						+ "its place in the list");
				writeAll(false);
			}
			return;
		}
		if (!none && halfRecorded(recorded)) {
			// Another instance is recording this very list (two instances of a first
			// list starting at once), or stopped halfway: it checked the databases and
			// raised their tokens before it wrote, so only the record is missing.
			completeRecord(recorded);
			return;
		}
		if (!drained) {
			refuseIfChanged(recorded, none);
		}
		raiseTokens();
		try {
			writeAll(none && !drained);
		}
		catch (DuplicateKeyException ex) {
			// Another instance recorded a first list meanwhile, in some databases or in
			// all: checked again, this list is accepted (its record completed), another
			// refused.
			check(false);
			return;
		}
		if (!none) {
			logger.warn("Recorded the lock shards " + this.list + " in their databases in place of "
					+ describe(recorded) + ", as the locks were drained: keys that moved now live in other databases");
		}
	}

	/**
	 * Refuses a lock table used without shards on a database that records a list of
	 * several: one of one is harmless, as every key of it lives in this database.
	 */
	static void checkWithoutShards(JdbcLockShardRecord record) {
		Recorded recorded;
		try {
			recorded = record.readIfPresent();
		}
		catch (DataAccessException ex) {
			logger.warn("Could not read the shard list recorded beside the lock table " + record.lockTableName()
					+ ", so it was not checked that it is used without shards only: " + ex.getMessage());
			return;
		}
		if (recorded != null && recorded.count() > 1) {
			String list = "[" + recorded.names() + "]";
			throw new LockShardsChangedException("The lock table " + record.lockTableName()
					+ " is used without shards, but its database records the shard list " + list + ", in which it is "
					+ "shard " + (recorded.index() + 1) + " of " + recorded.count() + ": instances of that list keep "
					+ "most keys in other databases, where a lock taken here does not exclude their holders", List.of(),
					list);
		}
	}

	private void refuseIfChanged(List<@Nullable Recorded> recorded, boolean none) {
		if (!none) {
			throw new LockShardsChangedException(
					"The lock shards " + this.list + " differ from the list recorded in their databases, "
							+ describe(recorded)
							+ ": keys would move to other databases while locks may be held under the recorded list",
					this.names, recordedList(recorded));
		}
		if (this.names.size() < 2) {
			return;
		}
		for (int i = 0; i < this.names.size(); i++) {
			long live = this.records.get(i).liveLocks();
			if (live > 0) {
				throw new LockShardsChangedException("The lock shards " + this.list
						+ " have no shard list recorded in their databases, but the lock table of shard "
						+ this.names.get(i) + " holds " + live + ((live == 1) ? " lock" : " locks")
						+ " now: instances that use it without "
						+ "these shards may be running, and keys would move to other databases while they hold locks",
						this.names, "none");
			}
		}
	}

	/** Each database's record, or {@code null} if one cannot be reached. */
	private @Nullable List<@Nullable Recorded> readAll() {
		List<@Nullable Recorded> recorded = new ArrayList<>();
		for (int i = 0; i < this.names.size(); i++) {
			JdbcLockShardRecord record = this.records.get(i);
			try {
				recorded.add(record.read());
			}
			catch (BadSqlGrammarException ex) {
				throw new IllegalStateException("The table " + record.tableName() + ", which records the shard list, "
						+ "cannot be read in lock shard " + this.names.get(i) + ": " + ex.getMostSpecificCause(), ex);
			}
			catch (DataAccessException ex) {
				logger.warn("Could not read the shard list recorded in lock shard " + this.names.get(i)
						+ ", so the lock shards " + this.list + " were not checked against it; lock calls to that "
						+ "shard fail until it can be reached: " + ex.getMessage());
				return null;
			}
		}
		return recorded;
	}

	private void raiseTokens() {
		long[] drawn = new long[this.records.size()];
		long floor = Long.MIN_VALUE;
		for (int i = 0; i < drawn.length; i++) {
			drawn[i] = this.records.get(i).nextToken();
			floor = Math.max(floor, drawn[i]);
		}
		for (int i = 0; i < drawn.length; i++) {
			// Drawn again just before: another instance starting with the same list may
			// have raised this database and drawn from it since the first draw, and then
			// the raise is skipped. The raise itself never lowers a sequence either, but
			// on H2 and PostgreSQL it draws and sets in two steps of one statement, and
			// this keeps it to the databases that are still below the floor.
			if (drawn[i] < floor && this.records.get(i).nextToken() < floor) {
				this.records.get(i).raiseTokensAbove(floor);
			}
		}
	}

	/** Whether each database records this list or none. */
	private boolean halfRecorded(List<@Nullable Recorded> recorded) {
		for (int i = 0; i < this.names.size(); i++) {
			Recorded shard = recorded.get(i);
			if (shard != null && !shard.equals(current(i))) {
				return false;
			}
		}
		return true;
	}

	private void completeRecord(List<@Nullable Recorded> recorded) {
		boolean raced = false;
		for (int i = 0; i < this.names.size(); i++) {
			if (recorded.get(i) == null) {
				try {
					this.records.get(i).write(current(i), true);
				}
				catch (DuplicateKeyException ex) {
					raced = true;
				}
			}
		}
		if (raced) {
			// Recorded by another instance meanwhile: this list, or a drained change to
			// another that must be refused.
			check(false);
		}
	}

	private void writeAll(boolean first) {
		for (int i = 0; i < this.names.size(); i++) {
			this.records.get(i).write(current(i), first);
		}
	}

	private Recorded current(int index) {
		return new Recorded(index, this.names.size(), String.join(", ", this.names));
	}

	/**
	 * Such as {@code [ds1, ds2] (ds3 records none)}: the recorded lists, and each
	 * database whose record differs from its place in the current list.
	 */
	private String describe(List<@Nullable Recorded> recorded) {
		List<String> differences = new ArrayList<>();
		for (int i = 0; i < this.names.size(); i++) {
			Recorded shard = recorded.get(i);
			if (shard == null) {
				differences.add(this.names.get(i) + " records none");
			}
			else if (!shard.sameShardAs(current(i))) {
				differences.add(this.names.get(i) + " records that it is shard " + (shard.index() + 1) + " of "
						+ shard.count());
			}
		}
		String lists = recordedList(recorded);
		return differences.isEmpty() ? lists : lists + " (" + String.join(", ", differences) + ")";
	}

	private static String recordedList(List<@Nullable Recorded> recorded) {
		Set<String> lists = new LinkedHashSet<>();
		for (Recorded shard : recorded) {
			if (shard != null) {
				lists.add("[" + shard.names() + "]");
			}
		}
		return lists.isEmpty() ? "none" : String.join(" and ", lists);
	}

}
