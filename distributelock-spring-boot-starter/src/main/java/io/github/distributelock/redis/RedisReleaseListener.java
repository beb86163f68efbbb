package io.github.distributelock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.core.task.SyncTaskExecutor;

/**
 * Waits for release messages on one shared subscriber connection, subscribed to a key's
 * channel only while a thread of this JVM waits for that key.
 */
final class RedisReleaseListener implements AutoCloseable {

	/**
	 * A channel nobody publishes to, subscribed from the first wait on, so the subscriber
	 * connection stays open between waits instead of being reopened for each.
	 */
	private static final ChannelTopic KEEP_OPEN = new ChannelTopic("distributelock:subscriber");

	private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

	private final AtomicBoolean keptOpen = new AtomicBoolean();

	/**
	 * Subscribes for the waiters: while Redis is unreachable a subscription waits for it
	 * without bound, so waiters wait for it here only until their deadline.
	 */
	private final ExecutorService subscriptions = Executors.newCachedThreadPool(daemon("distributelock-subscribe"));

	/**
	 * Retries a failed subscription later, instead of sleeping on the waiter's thread.
	 */
	private final ScheduledExecutorService recovery = Executors
		.newSingleThreadScheduledExecutor(daemon("distributelock-subscribe-recovery"));

	RedisReleaseListener(RedisConnectionFactory connectionFactory) {
		this.container.setConnectionFactory(connectionFactory);
		// The listener only counts down a latch: run it on the connection's thread.
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setSubscriptionExecutor(this.recovery);
		this.container.afterPropertiesSet();
		this.container.start();
	}

	/**
	 * Subscribes to {@code channel}, then calls {@code released} and, unless the lock is
	 * already free, blocks until a release message arrives or {@code maxWait} passes.
	 */
	void await(String channel, Duration maxWait, ReleaseCheck released) throws InterruptedException {
		ReleaseLatch latch = new ReleaseLatch();
		ChannelTopic topic = new ChannelTopic(channel);
		// Completes once Redis has confirmed the subscription, so a release after the
		// check below is always heard.
		CompletableFuture<Void> subscribed = CompletableFuture.runAsync(() -> subscribe(latch, topic),
				this.subscriptions);
		try {
			subscribed.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// Redis did not confirm in time: the caller's next attempt tells why.
			subscribed.whenComplete((result, failure) -> this.container.removeMessageListener(latch, topic));
			return;
		}
		catch (InterruptedException ex) {
			subscribed.whenComplete((result, failure) -> this.container.removeMessageListener(latch, topic));
			throw ex;
		}
		catch (ExecutionException ex) {
			this.container.removeMessageListener(latch, topic);
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		try {
			Duration wait = released.remainingWait(maxWait);
			if (!wait.isZero() && !wait.isNegative()) {
				latch.await(wait);
			}
		}
		finally {
			this.container.removeMessageListener(latch, topic);
		}
	}

	private void subscribe(ReleaseLatch latch, ChannelTopic topic) {
		if (this.keptOpen.compareAndSet(false, true)) {
			this.container.addMessageListener((message, pattern) -> {
			}, KEEP_OPEN);
		}
		this.container.addMessageListener(latch, topic);
	}

	@Override
	public void close() throws Exception {
		try {
			this.container.destroy();
		}
		finally {
			this.subscriptions.shutdownNow();
			this.recovery.shutdownNow();
		}
	}

	private static ThreadFactory daemon(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Tells, once subscribed, how much longer to wait: zero if the lock is already free.
	 */
	@FunctionalInterface
	interface ReleaseCheck {

		Duration remainingWait(Duration maxWait);

	}

	private static final class ReleaseLatch implements MessageListener {

		private final CountDownLatch released = new CountDownLatch(1);

		@Override
		public void onMessage(Message message, byte[] pattern) {
			this.released.countDown();
		}

		void await(Duration wait) throws InterruptedException {
			this.released.await(wait.toNanos(), TimeUnit.NANOSECONDS);
		}

	}

}
