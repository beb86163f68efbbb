package io.github.distributelock.redis;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * One key's release channel, the waiting of the threads that wait on it and the count of
 * releases heard. The waiter count and the futures are guarded by the per-key compute of
 * {@link RedisReleaseListener}'s map.
 */
final class RedisReleaseChannel implements MessageListener, SubscriptionListener {

	final String name;

	final ChannelTopic topic;

	final Set<CompletableFuture<Void>> waiting = ConcurrentHashMap.newKeySet();

	final AtomicLong releases = new AtomicLong();

	/** Whether Redis confirmed the subscription, which has not failed since. */
	volatile boolean confirmed;

	/** The client of the connection factory that the subscription was made on. */
	volatile @Nullable Object client;

	int waiters;

	/**
	 * Completes once Redis has confirmed the subscription; set by the first waiter.
	 */
	@Nullable CompletableFuture<Void> subscribed;

	/** When the last waiter left, on {@link System#nanoTime()}'s scale. */
	long idleSinceNanos;

	/** Whether a timer will look whether the channel has been idle long enough. */
	boolean unsubscribeSet;

	private final RedisAnswerThreads answerThreads;

	RedisReleaseChannel(String name, RedisAnswerThreads answerThreads) {
		this.name = name;
		this.answerThreads = answerThreads;
		this.topic = new ChannelTopic(name);
	}

	CompletableFuture<Void> subscribed() {
		CompletableFuture<Void> subscribed = this.subscribed;
		if (subscribed == null) {
			throw new IllegalStateException("No subscription to " + this.name);
		}
		return subscribed;
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		wakeEveryWaiter();
	}

	/**
	 * A confirmation of a channel already confirmed: the client lost its subscriber
	 * connection, reconnected and subscribed again. A release published while the
	 * connection was down reached no one, so the waiters attempt again now, rather than
	 * sleep through it until the holder's lease or their wait time ends.
	 */
	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		if (this.confirmed) {
			wakeEveryWaiter();
		}
	}

	private void wakeEveryWaiter() {
		// Woken waiters attempt again on this thread.
		this.answerThreads.answeredOnThisThread();
		this.releases.incrementAndGet();
		for (CompletableFuture<Void> waiter : this.waiting) {
			waiter.complete(null);
		}
	}

}
