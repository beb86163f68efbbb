package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on one real database, plus what is particular to a lock table: the row,
 * transactions and pools in manual-commit mode.
 */
abstract class AbstractJdbcLockBackendContractTests extends AbstractLockBackendContractTests {

	abstract JdbcTestDatabase database();

	@Override
	protected LockBackend newBackend() {
		HikariDataSource dataSource = database().newDataSource();
		closeAfterTest(dataSource);
		return new JdbcLockBackend(dataSource);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return database().isLocked(key);
	}

	@Test
	void detectsTheDialect() {
		assertThat(((JdbcLockBackend) newBackend()).dialect()).isEqualTo(database().dialect());
	}

	@Test
	void rowHoldsOwnerTokenAndALeaseOnTheDatabaseClock() throws Exception {
		DefaultDistributeLock lock = newLock();
		assertThat(lock.tryLock(key(), "owner-1", 0, 10_000)).isTrue();
		String owner = database().jdbcTemplate()
			.queryForObject("SELECT owner FROM distributelock WHERE lock_key = ?", String.class, key());
		assertThat(owner).isEqualTo("owner-1");
		assertThat(isLockedInStore(key())).isTrue();
		LockBackend other = newBackend();
		AcquireResult refused = other.tryAcquire(key(), "owner-2", Duration.ofSeconds(10));
		assertThat(refused.acquired()).isFalse();
		assertThat(refused.holderLeaseRemaining()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
		assertThat(lock.releaseLock(key(), "owner-1")).isTrue();
	}

	@Test
	void lockTakenInsideATransactionIsSeenAtOnceAndSurvivesItsRollback() throws Exception {
		HikariDataSource dataSource = database().newDataSource();
		closeAfterTest(dataSource);
		DefaultDistributeLock lock = newLock(new JdbcLockBackend(dataSource),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
		TransactionStatus transaction = transactions.getTransaction(TransactionDefinition.withDefaults());
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(isLockedInStore(key())).isTrue();
		transactions.rollback(transaction);
		assertThat(isLockedInStore(key())).isTrue();
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void poolInManualCommitModeStillCommitsEachStatement() throws Exception {
		HikariDataSource dataSource = database().newDataSource((config) -> config.setAutoCommit(false));
		closeAfterTest(dataSource);
		DefaultDistributeLock lock = newLock(new JdbcLockBackend(dataSource),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(isLockedInStore(key())).isTrue();
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void eightThreadsOnEachOfTwoDataSourcesKeepMutualExclusion() throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		int threadsPerInstance = 8;
		int iterations = 25;
		int[] counter = { 0 };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(threadsPerInstance * instances.length);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (DefaultDistributeLock lock : instances) {
				for (int t = 0; t < threadsPerInstance; t++) {
					workers.add(pool.submit(() -> {
						for (int i = 0; i < iterations; i++) {
							try (LockHandle handle = lock.tryAcquire(key(), Duration.ofSeconds(60), null)
								.orElseThrow()) {
								if (inside.incrementAndGet() != 1) {
									overlaps.incrementAndGet();
								}
								int read = counter[0];
								Thread.yield();
								counter[0] = read + 1;
								inside.decrementAndGet();
							}
						}
						return null;
					}));
				}
			}
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(overlaps.get()).isZero();
		assertThat(counter[0]).isEqualTo(threadsPerInstance * instances.length * iterations);
		assertThat(isLockedInStore(key())).isFalse();
	}

}
