package io.github.distributelock.jdbc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on a lock table spread over several real databases, read directly in the
 * database each key's hash picks, plus where the keys land.
 */
abstract class AbstractShardedJdbcLockBackendContractTests extends AbstractLockBackendContractTests {

	/** The shards' databases, in order. */
	abstract List<JdbcTestDatabase> databases();

	@Override
	protected LockBackend newBackend() {
		ShardedJdbcLockBackend.Builder builder = ShardedJdbcLockBackend.builder().createSchema(true);
		for (int i = 0; i < databases().size(); i++) {
			HikariDataSource dataSource = databases().get(i).newDataSource();
			closeAfterTest(dataSource);
			builder.shard(shardName(i), new JdbcLockBackend(dataSource));
		}
		return builder.build();
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return databases().get(expectedShard(key)).isLocked(key);
	}

	@Test
	void eachKeyLivesInTheDatabaseItsHashPicksAndInNoOther() throws Exception {
		ShardedJdbcLockBackend backend = trackBackend((ShardedJdbcLockBackend) newBackend());
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		int[] keysPerShard = new int[databases().size()];
		List<LockHandle> held = new ArrayList<>();
		for (int k = 0; k < 40; k++) {
			String key = key() + "." + k;
			held.add(lock.tryAcquire(key, Duration.ZERO, null).orElseThrow());
			int shard = expectedShard(key);
			keysPerShard[shard]++;
			assertThat(backend.shardOf(key)).isEqualTo(shardName(shard));
			for (int i = 0; i < databases().size(); i++) {
				assertThat(rows(databases().get(i), key)).as("rows of %s in shard %d", key, i)
					.isEqualTo((i == shard) ? 1 : 0);
			}
			assertThat(databases().get(shard).isLocked(key)).isTrue();
		}
		assertThat(keysPerShard).doesNotContain(0);
		held.forEach(LockHandle::close);
		for (int k = 0; k < 40; k++) {
			assertThat(databases().get(expectedShard(key() + "." + k)).isLocked(key() + "." + k)).isFalse();
		}
	}

	/**
	 * The documented hash, computed here on its own: CRC32 of the key's UTF-8 bytes,
	 * unsigned, modulo the number of shards.
	 */
	int expectedShard(String key) {
		CRC32 crc = new CRC32();
		crc.update(key.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % databases().size());
	}

	static String shardName(int index) {
		return "shard-" + (index + 1);
	}

	private static int rows(JdbcTestDatabase database, String key) {
		Integer rows = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

	@Override
	@Test
	@Disabled(AbstractJdbcLockBackendContractTests.NO_HAND_OVER)
	protected void aWaiterThatGivesUpWhileTheLockIsHandedToItLeavesNothingInTheStore() {
	}

	@Override
	@Test
	@Disabled(AbstractJdbcLockBackendContractTests.NO_HAND_OVER)
	protected void aWaiterInterruptedWhileTheLockIsHandedToItLeavesNothingInTheStore() {
	}

}
