package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter that polls the lock table (every database but PostgreSQL with notifications,
 * and waiters of the other kinds everywhere) never pauses past the holder's lease it read
 * last, as docs/backends/jdbc.md says: a lease cut to the rest of a minimum hold hands
 * the key over when the hold ends, not at the waiter's next poll. The polls are paced 10
 * to 20 s apart here, so that only the lease read can explain a hand-off at the end of
 * the hold.
 */
class JdbcLockBackendPollingWaitTests {

	private static final Duration HOLD = Duration.ofMillis(4_800);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

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

	/**
	 * The wait of a fair, read or permit waiter between two attempts ends when the lease
	 * its poll read ends, as a plain waiter's does. The engine's waits of these kinds
	 * last 3 s at most, so this drives the backend's wait itself, with a deadline far
	 * off: the lease, cut to 4.8 s as a minimum hold's end cuts it, ends between the
	 * first poll (2 to 4 s after the wait began) and the second (4 to 8 s after the
	 * first).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "read", "permits" })
	void aWaiterOfAnotherKindEndsItsWaitWhenTheLeaseItReadEndsNotAtItsNextPoll(String kind) throws Exception {
		HikariDataSource pool = this.closeables.add(new HikariDataSource());
		pool.setJdbcUrl("jdbc:h2:mem:polling-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		pool.setUsername("sa");
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(pool));
		backend.createSchema();
		backend.pace(Duration.ofSeconds(4), Duration.ofSeconds(20), Duration.ofSeconds(20));
		String key = "polling.kind." + kind;
		LockKind held = switch (kind) {
			case "fair" -> LockKind.FAIR;
			case "read" -> LockKind.WRITE;
			default -> LockKind.permits(1);
		};
		Claim holder = new Claim(key, "holder", null, held);
		Claim waiter = new Claim(key, "waiter", null, (held == LockKind.WRITE) ? LockKind.READ : held);
		assertThat(get(backend.tryAcquire(holder, Duration.ofMinutes(1))).acquired()).isTrue();
		AcquireResult refused = get(backend.tryAcquire(waiter, Duration.ofMinutes(1)));
		assertThat(refused.acquired()).isFalse();
		cutThenAwait(backend, holder, waiter, refused);
	}

	/**
	 * A permit waiter's poll reads when the next permit frees: the soonest lease among
	 * the key's holders, not the key's row, which lasts as long as the longest. Two
	 * holders of 2 permits hold leases of a minute, and one's is cut to 4.8 s; the polls
	 * are 2 to 4 s, then 4 to 8 s apart, so the wait can end near 4.8 s only by that
	 * lease.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql" })
	void aPermitWaiterTakesThePermitWhenTheSoonestLeaseOfItsHoldersEnds(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		JdbcLockBackend backend = this.closeables
			.add(new JdbcLockBackend(this.closeables.add(database.newDataSource())));
		backend.pace(Duration.ofSeconds(4), Duration.ofSeconds(20), Duration.ofSeconds(20));
		String key = "polling.soonest-permit." + System.nanoTime();
		Claim cut = new Claim(key, "cut", null, LockKind.permits(2));
		Claim kept = new Claim(key, "kept", null, LockKind.permits(2));
		Claim waiter = new Claim(key, "waiter", null, LockKind.permits(2));
		assertThat(get(backend.tryAcquire(cut, Duration.ofMinutes(1))).acquired()).isTrue();
		assertThat(get(backend.tryAcquire(kept, Duration.ofMinutes(1))).acquired()).isTrue();
		AcquireResult refused = get(backend.tryAcquire(waiter, Duration.ofMinutes(1)));
		assertThat(refused.acquired()).isFalse();
		cutThenAwait(backend, cut, waiter, refused);
		assertThat(get(backend.release(kept))).isTrue();
		assertThat(get(backend.release(waiter))).isTrue();
	}

	/**
	 * Cuts the lease of {@code holder} to {@link #HOLD}, as the end of a minimum hold
	 * does, and checks that the refused {@code waiter}'s wait ends when that lease ends,
	 * not at its next poll, and that the waiter then takes the key.
	 */
	private static void cutThenAwait(JdbcLockBackend backend, Claim holder, Claim waiter, AcquireResult refused)
			throws Exception {
		assertThat(get(backend.renew(holder, HOLD))).isTrue();
		long cut = System.nanoTime();
		get(backend.awaitRelease(waiter, refused, Deadline.after(Duration.ofMinutes(2))));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut)).isBetween(HOLD.toMillis() - 500,
				HOLD.toMillis() + 700);
		assertThat(get(backend.tryAcquire(waiter, Duration.ofMinutes(1))).acquired()).isTrue();
	}

	private static <T> T get(CompletionStage<T> stage) throws Exception {
		return stage.toCompletableFuture().get(1, TimeUnit.MINUTES);
	}

}
