package io.github.distributelock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.Deadline;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release subscription under way when the connection factory stops (phase 0 of a
 * context's close, which nothing in the backend is told of when the lock backend bean is
 * not the {@link RedisLockBackend} itself, or when the pause gave up waiting) fails
 * quietly: Spring Data Redis's listener container, which does not know that its factory
 * stopped, logged {@code SubscriptionTask aborted with exception} at ERROR, or retried a
 * connection failure every 5 s until the backend was closed.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisReleaseListenerFactoryStopTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aSubscriptionUnderWayWhenTheFactoryStopsFailsWithoutAnErrorOrARetry(CapturedOutput output) throws Exception {
		PubSubHoldingFactory factory = new PubSubHoldingFactory(redis.port());
		factory.afterPropertiesSet();
		this.closeables.add(factory::destroy);
		// Counted down last, also when an assertion fails: the held thread goes on.
		this.closeables.add(factory.go::countDown);
		RedisReleaseListener listener = this.closeables
			.add(new RedisReleaseListener(factory, new RedisAnswerThreads()));
		CompletableFuture<Void> wait = listener.await("distributelock:released:factory.stop",
				Deadline.after(Duration.ofMinutes(1)), null, () -> CompletableFuture.completedFuture(Long.MAX_VALUE));
		// The subscription has its pub/sub connection and has not sent SUBSCRIBE yet.
		assertThat(factory.holding.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("subscription held").isTrue();
		factory.stop();
		factory.go.countDown();
		await("the wait ended by its failed subscription").atMost(BOUND).until(wait::isDone);
		assertThat(wait).isCompletedExceptionally();
		// The container logs before it fails the subscription, and before the timeout
		// of 2 s that the wait would see if it retried.
		assertThat(output).doesNotContain("aborted with exception").doesNotContain("Connection failure occurred");
	}

	/**
	 * The container, not running once its factory stopped, subscribes nothing: the wait
	 * is told so, rather than believed subscribed and left waiting for a message that
	 * cannot come.
	 */
	@Test
	void aWaitOnAStoppedFactoryFailsAtOnceSayingSo(CapturedOutput output) {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		this.closeables.add(factory::destroy);
		RedisReleaseListener listener = this.closeables
			.add(new RedisReleaseListener(factory, new RedisAnswerThreads()));
		factory.stop();
		CompletableFuture<Void> wait = listener.await("distributelock:released:factory.stopped",
				Deadline.after(Duration.ofMinutes(1)), null, () -> CompletableFuture.completedFuture(Long.MAX_VALUE));
		assertThat(wait).failsWithin(BOUND)
			.withThrowableOfType(ExecutionException.class)
			.withMessageContaining("Not subscribed to distributelock:released:factory.stopped")
			.withMessageContaining("the Redis connection factory stopped");
		assertThat(output).doesNotContain("aborted with exception").doesNotContain("Connection failure occurred");
	}

	/**
	 * Holds the first switch of one of its connections to pub/sub, after the pub/sub
	 * connection is open and before anything is sent on it, until {@link #go} is counted
	 * down.
	 */
	static final class PubSubHoldingFactory extends LettuceConnectionFactory {

		final CountDownLatch holding = new CountDownLatch(1);

		final CountDownLatch go = new CountDownLatch(1);

		private final AtomicBoolean held = new AtomicBoolean();

		PubSubHoldingFactory(int port) {
			super(new RedisStandaloneConfiguration("127.0.0.1", port));
		}

		@Override
		protected LettuceConnection doCreateLettuceConnection(
				@Nullable StatefulRedisConnection<byte[], byte[]> sharedConnection,
				LettuceConnectionProvider connectionProvider, long timeout, int database) {
			return new LettuceConnection(sharedConnection, connectionProvider, timeout, database) {

				@Override
				protected StatefulRedisPubSubConnection<byte[], byte[]> switchToPubSub() {
					StatefulRedisPubSubConnection<byte[], byte[]> connection = super.switchToPubSub();
					if (PubSubHoldingFactory.this.held.compareAndSet(false, true)) {
						hold();
					}
					return connection;
				}

			};
		}

		private void hold() {
			this.holding.countDown();
			try {
				if (!this.go.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
					throw new IllegalStateException("Not let go within " + BOUND);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while held", ex);
			}
		}

	}

}
