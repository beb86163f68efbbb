package io.github.distributelock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.Deadline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wait woken by a release message leaves nothing behind, and waits do not set a timer
 * each: a wait's deadline comes far later (a holder's lease, up to the watchdog's 30 s),
 * and under contention thousands of waits a second end early. Cancelled timers kept until
 * their time held every one of those waits' futures until then; a timer set per wait woke
 * the timer thread at nearly every wait.
 */
class RedisReleaseListenerTimersTests {

	private static final int WAITS = 200;

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void waitsWokenByAReleaseLeaveNoTimers() {
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofSeconds(3));
		this.closeables.add(factory::destroy);
		RedisReleaseListener listener = this.closeables
			.add(new RedisReleaseListener(factory, new RedisAnswerThreads()));
		String channel = "distributelock:released:timers.test";
		List<CompletableFuture<Void>> waits = new ArrayList<>();
		for (int i = 0; i < WAITS; i++) {
			// The key's lease is of no help: only a message ends the wait early.
			waits.add(listener.await(channel, Deadline.after(Duration.ofSeconds(30)), null,
					() -> CompletableFuture.completedFuture(Long.MAX_VALUE)));
		}
		assertThat(listener.pendingDeadlines()).as("deadlines while the waits wait").isEqualTo(WAITS);
		// One for the earliest deadline, and at most one the subscription left behind.
		assertThat(listener.pendingTimers()).as("timers while the waits wait").isLessThanOrEqualTo(2);
		await().atMost(BOUND).until(() -> {
			redis.store().convertAndSend(channel, "1");
			return waits.stream().allMatch(CompletableFuture::isDone);
		});
		assertThat(waits).allMatch((wait) -> !wait.isCompletedExceptionally());
		// A wait's deadline is forgotten by an action of its future, run by the
		// waking thread just after it completed the future.
		await("deadlines once every wait was woken").atMost(BOUND).until(() -> listener.pendingDeadlines() == 0);
		// The one set for the earliest deadline, which finds nothing due when it runs,
		// and the channel's unsubscription, a moment after its last waiter.
		assertThat(listener.pendingTimers()).as("timers once every wait was woken").isLessThanOrEqualTo(2);
	}

	/**
	 * Closing drops the timer thread's timers: a wait pending then must end at once
	 * rather than stay open until a message that may never come.
	 */
	@Test
	void closingEndsThePendingWaits() throws Exception {
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofSeconds(3));
		this.closeables.add(factory::destroy);
		RedisReleaseListener listener = new RedisReleaseListener(factory, new RedisAnswerThreads());
		CompletableFuture<Void> wait = listener.await("distributelock:released:close.test",
				Deadline.after(Duration.ofMinutes(1)), null, () -> CompletableFuture.completedFuture(Long.MAX_VALUE));
		listener.close();
		await().atMost(BOUND).until(wait::isDone);
		assertThat(listener.pendingDeadlines()).isZero();
	}

}
