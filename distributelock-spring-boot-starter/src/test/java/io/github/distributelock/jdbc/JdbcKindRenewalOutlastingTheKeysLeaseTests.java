package io.github.distributelock.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reader's, writer's or permit holder's renewal is two statements under the key's row
 * lock: its own row's lease, then the key's row, which must last as long as the longest
 * lease of its holders. When the key's row lease ends between the two (the renewal's
 * client paused, or its network stalled, while the row lock kept every other statement of
 * the key waiting), the second statement finds the key free and extends nothing: the
 * renewal must then not report the lock as held, as the key is free to any attempt and a
 * plain one takes it at once.
 */
class JdbcKindRenewalOutlastingTheKeysLeaseTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@OnEachDatabase
	void aReaderWhoseRenewalOutlastsTheKeysLeaseIsNotRenewed(JdbcTestDatabase database) throws Exception {
		assertARenewalOutlastingTheKeysLeaseHoldsNothing(database, LockKind.READ, TABLE + "_h");
	}

	@OnEachDatabase
	void aWriterWhoseRenewalOutlastsTheKeysLeaseIsNotRenewed(JdbcTestDatabase database) throws Exception {
		assertARenewalOutlastingTheKeysLeaseHoldsNothing(database, LockKind.WRITE, TABLE + "_h");
	}

	@OnEachDatabase
	void aPermitHolderWhoseRenewalOutlastsTheKeysLeaseIsNotRenewed(JdbcTestDatabase database) throws Exception {
		assertARenewalOutlastingTheKeysLeaseHoldsNothing(database, LockKind.permits(2), TABLE + "_p");
	}

	private void assertARenewalOutlastingTheKeysLeaseHoldsNothing(JdbcTestDatabase database, LockKind kind,
			String holderTable) throws Exception {
		String key = "renewal-past-lease." + System.nanoTime();
		try (HikariDataSource holderData = database.newDataSource();
				HikariDataSource otherData = database.newDataSource();
				JdbcLockBackend other = new JdbcLockBackend(otherData)) {
			// Reads committed rows only, locking nothing: the renewal's transaction keeps
			// the key's row locked meanwhile.
			BeforeStatement paused = new BeforeStatement(holderData, "MAX(",
					() -> await().atMost(Duration.ofSeconds(20)).until(() -> !database.isLocked(key)));
			try (JdbcLockBackend holder = new JdbcLockBackend(paused)) {
				LockBackend.Claim claim = new LockBackend.Claim(key, "holder", null, kind);
				assertThat(Backends.join(holder.tryAcquire(claim, Duration.ofSeconds(1))).acquired()).isTrue();
				paused.armed.set(true);
				boolean renewed = Backends.join(holder.renew(claim, Duration.ofSeconds(30)));
				assertThat(paused.armed).as("the renewal paused before the key's row").isFalse();
				boolean plainTakesIt = Backends
					.join(other.tryAcquire(new LockBackend.Claim(key, "plain", null, LockKind.EXCLUSIVE),
							Duration.ofSeconds(30)))
					.acquired();
				// On H2 both statements of the renewal read one clock, fixed before the
				// pause, so the key's row is extended and stays held.
				assertThat(renewed && plainTakesIt).as("the renewed " + kind.tag() + " holder and a plain one hold")
					.isFalse();
				if (!renewed) {
					Integer live = database.jdbcTemplate()
						.queryForObject("SELECT COUNT(*) FROM " + holderTable + " WHERE lock_key = ? AND owner = ? "
								+ "AND expires_at > " + database.now(), Integer.class, key, "holder");
					assertThat(live).as("live rows of the holder whose renewal failed").isZero();
				}
			}
		}
	}

}
