package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The backend's statement pool runs the polls of non-blocking waiters and the watchdog's
 * renewals alike (on H2, every statement): a renewal must not wait behind the polls of
 * many waiters until the lease it renews has run out. A 300 ms lease, renewed every 100
 * ms, is kept here while 4,000 non-blocking waiters poll keys held elsewhere, and a
 * waiter of its own key never gets it.
 */
class JdbcLockBackendStatementPoolTests {

	private static final int WAITERS = 4_000;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void renewalsOfAShortLeaseAreNotHeldUpByThePollsOfManyNonBlockingWaiters() throws Exception {
		HikariDataSource pool = this.closeables.add(new HikariDataSource());
		pool.setJdbcUrl("jdbc:h2:mem:statement-pool-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		pool.setUsername("sa");
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(pool));
		backend.createSchema();
		DefaultDistributeLock holder = this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofMillis(300), false, LockEventListener.NONE, null));
		DefaultDistributeLock waiters = this.closeables.add(new DefaultDistributeLock(backend));
		// Keys held for longer than the test, one per waiter: of the waiters of one key
		// in one instance, only the first polls, the others wait in line locally.
		DefaultDistributeLock others = this.closeables.add(new DefaultDistributeLock(backend));
		for (int i = 0; i < WAITERS; i++) {
			others.tryAcquire("statement-pool.busy." + i, Duration.ZERO, Duration.ofMinutes(5)).orElseThrow();
		}
		String key = "statement-pool.held";
		LockHandle held = holder.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		List<CompletableFuture<Optional<LockHandle>>> waiting = new ArrayList<>();
		for (int i = 0; i < WAITERS; i++) {
			waiting.add(waiters
				.tryAcquireAsync(LockRequest.of("statement-pool.busy." + i).withWaitTime(Duration.ofSeconds(5))));
		}
		CompletableFuture<Optional<LockHandle>> competing = waiters
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofSeconds(5)));
		waiting.add(competing);
		CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
		long taken = waiting.stream().filter((wait) -> wait.join().isPresent()).count();
		assertThat(held.isHeld()).isTrue();
		assertThat(taken).isZero();
		held.close();
	}

}
