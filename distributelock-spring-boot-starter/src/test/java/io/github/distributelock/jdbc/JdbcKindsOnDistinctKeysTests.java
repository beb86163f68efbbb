package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers of read, write and permit locks on keys of their own never meet: an attempt on
 * a free key takes it at once, however many attempts on other keys run beside it (on
 * MariaDB and MySQL, whose default isolation locks the gaps of an index, the attempts of
 * neighbouring keys must not deadlock each other into a refusal).
 */
class JdbcKindsOnDistinctKeysTests {

	private static final int THREADS = 8;

	private static final int ROUNDS = 120;

	@OnEachDatabase
	void attemptsOnFreeKeysOfTheirOwnAreNeverRefused(JdbcTestDatabase database) throws Exception {
		String prefix = "distinct-keys." + System.nanoTime() + ".";
		AtomicInteger refused = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try (HikariDataSource data = database.newDataSource((config) -> config.setMaximumPoolSize(THREADS));
				JdbcLockBackend backend = new JdbcLockBackend(data)) {
			CyclicBarrier start = new CyclicBarrier(THREADS);
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				String key = prefix + t;
				done.add(threads.submit(() -> {
					start.await(20, TimeUnit.SECONDS);
					for (int round = 0; round < ROUNDS; round++) {
						LockKind kind = switch (round % 3) {
							case 0 -> LockKind.READ;
							case 1 -> LockKind.WRITE;
							default -> LockKind.permits(2);
						};
						String owner = "owner-" + round;
						LockBackend.Claim claim = new LockBackend.Claim(key + "." + kind.tag(), owner, null, kind);
						if (Backends.join(backend.tryAcquire(claim, Duration.ofSeconds(30))).acquired()) {
							assertThat(Backends.join(backend.release(claim))).isTrue();
						}
						else {
							refused.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> thread : done) {
				thread.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(refused).as("attempts refused on free keys nobody else asked for").hasValue(0);
	}

	/**
	 * A permit attempt deletes this owner's earlier slot by its primary key before it
	 * takes one: the owner still has one slot, and the count holds.
	 */
	@OnEachDatabase
	void anOwnerThatAttemptsAgainForAPermitKeepsOneSlot(JdbcTestDatabase database) throws Exception {
		String key = "permit-again." + System.nanoTime();
		LockKind two = LockKind.permits(2);
		try (HikariDataSource data = database.newDataSource(); JdbcLockBackend backend = new JdbcLockBackend(data)) {
			LockBackend.Claim again = new LockBackend.Claim(key, "again", null, two);
			assertThat(Backends.join(backend.tryAcquire(again, Duration.ofSeconds(30))).acquired()).isTrue();
			assertThat(Backends.join(backend.tryAcquire(again, Duration.ofSeconds(30))).acquired()).isTrue();
			assertThat(database.jdbcTemplate()
				.queryForObject("SELECT COUNT(*) FROM distributelock_p WHERE lock_key = ?", Integer.class, key))
				.isOne();
			assertThat(Backends
				.join(backend.tryAcquire(new LockBackend.Claim(key, "other", null, two), Duration.ofSeconds(30)))
				.acquired()).isTrue();
			assertThat(Backends
				.join(backend.tryAcquire(new LockBackend.Claim(key, "third", null, two), Duration.ofSeconds(30)))
				.acquired()).as("a third holder of two permits").isFalse();
		}
	}

}
