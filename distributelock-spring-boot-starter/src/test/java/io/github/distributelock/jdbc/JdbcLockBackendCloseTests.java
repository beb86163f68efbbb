package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Closing the backend ends the waits that poll on its statement pool, as the Redis and
 * ZooKeeper backends end theirs: a poll due after the close is refused by the pool, and
 * nothing else would end the wait before its deadline.
 */
class JdbcLockBackendCloseTests {

	/** Far below the wait's deadline and the holder's lease. */
	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@ParameterizedTest
	@ValueSource(strings = { "plain", "fair" })
	void closingEndsAWaitThatPolls(String kind) throws Exception {
		JdbcLockBackend backend = newBackend();
		backend.pace(Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(200));
		LockKind held = kind.equals("plain") ? LockKind.EXCLUSIVE : LockKind.FAIR;
		String key = "close." + kind;
		Claim holder = new Claim(key, "holder", null, held);
		Claim waiter = new Claim(key, "waiter", null, held);
		assertThat(get(backend.tryAcquire(holder, Duration.ofMinutes(2))).acquired()).isTrue();
		AcquireResult refused = get(backend.tryAcquire(waiter, Duration.ofMinutes(2)));
		assertThat(refused.acquired()).isFalse();
		CompletableFuture<Void> waiting = backend.awaitRelease(waiter, refused, Deadline.after(Duration.ofMinutes(2)))
			.toCompletableFuture();
		assertThat(waiting).as("waiting while the key is held").isNotDone();

		backend.close();

		await().atMost(BOUND).until(waiting::isDone);
		assertThat(waiting).isNotCompletedExceptionally();
	}

	@Test
	void aStatementAfterTheCloseSaysTheBackendIsClosed() throws Exception {
		JdbcLockBackend backend = newBackend();
		backend.close();

		Claim claim = new Claim("after.close", "owner", null, LockKind.EXCLUSIVE);
		assertThatThrownBy(() -> get(backend.tryAcquire(claim, Duration.ofMinutes(1))))
			.hasMessageContaining("The JDBC lock backend is closed")
			.hasMessageNotContaining("Queued");
	}

	private JdbcLockBackend newBackend() {
		HikariDataSource pool = this.closeables.add(new HikariDataSource());
		pool.setJdbcUrl("jdbc:h2:mem:close-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		pool.setUsername("sa");
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(pool));
		backend.createSchema();
		return backend;
	}

	private static <T> T get(CompletionStage<T> stage) throws Exception {
		return stage.toCompletableFuture().get(1, TimeUnit.MINUTES);
	}

}
