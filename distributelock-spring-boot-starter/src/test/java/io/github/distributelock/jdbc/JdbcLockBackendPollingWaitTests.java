package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter that polls the lock table (every database but PostgreSQL with notifications)
 * never pauses past the holder's lease it read last, as docs/backends/jdbc.md says: a
 * lease cut to the rest of a minimum hold hands the key over when the hold ends, not at
 * the waiter's next poll. The polls are paced 10 to 20 s apart here, so that only the
 * lease read can explain a hand-off at the end of the hold.
 */
class JdbcLockBackendPollingWaitTests {

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aPollingWaiterTakesTheKeyWhenTheMinimumHoldOfItsHolderEndsNotAtItsNextPoll() throws Exception {
		HikariDataSource pool = this.closeables.add(new HikariDataSource());
		pool.setJdbcUrl("jdbc:h2:mem:polling-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		pool.setUsername("sa");
		JdbcLockBackend holderBackend = this.closeables.add(new JdbcLockBackend(pool));
		holderBackend.createSchema();
		JdbcLockBackend waiterBackend = this.closeables.add(new JdbcLockBackend(pool));
		waiterBackend.pace(Duration.ofSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(20));
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		CompletableFuture<Void> waitGo = counting.holdBackWaits();
		DefaultDistributeLock holder = this.closeables.add(new DefaultDistributeLock(holderBackend));
		DefaultDistributeLock waiter = this.closeables.add(new DefaultDistributeLock(counting));
		String key = "polling.minimum-hold";
		LockHandle held = holder.tryAcquire(LockRequest.of(key).withMinimumHold(Duration.ofSeconds(6))).orElseThrow();
		long acquired = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> waiting = waiter
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofMinutes(2)));
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		// Cut to the rest of the minimum hold after the attempt, before the wait's polls.
		held.close();
		waitGo.complete(null);
		assertThat(waiting.get(1, TimeUnit.MINUTES)).hasValueSatisfying(LockHandle::close);
		// The hold ends 6 s after the acquisition; the first poll is at once, the next
		// 10 to 20 s later.
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acquired)).isBetween(5_000L, 8_000L);
	}

}
