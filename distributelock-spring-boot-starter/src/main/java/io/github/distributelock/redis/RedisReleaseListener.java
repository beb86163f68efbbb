package io.github.distributelock.redis;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.WaitDeadlines;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * Waits for release messages on one shared subscriber connection, subscribed to a key's
 * channel while threads of this JVM wait for that key, and for a moment after the last
 * one left.
 * <p>
 * Subscribing and unsubscribing are round trips that Spring Data Redis makes
 * synchronously. A waiter woken by a release must try for the lock at once, not after
 * unsubscribing, or a waiter in another JVM that needs no round trip first takes it; and
 * a waiter that lost that race waits again within a millisecond, so the subscription it
 * just left is kept for {@link #LINGER} and unsubscribed off the waiters' threads.
 */
final class RedisReleaseListener implements AutoCloseable {

	/** How long a channel stays subscribed after its last waiter left. */
	static final Duration LINGER = Duration.ofMillis(100);

	/**
	 * A channel nobody publishes to, subscribed from the first wait on, so the subscriber
	 * connection stays open between waits instead of being reopened for each.
	 */
	private static final ChannelTopic KEEP_OPEN = new ChannelTopic("distributelock:subscriber");

	private static final Log logger = LogFactory.getLog(RedisReleaseListener.class);

	private final RedisReleaseListenerContainer container;

	/** How long close() waits for a subscription under way to end before it stops it. */
	private static final Duration SUBSCRIPTION_END_WAIT = Duration.ofSeconds(2);

	private final AtomicBoolean keptOpen = new AtomicBoolean();

	private final ConcurrentHashMap<String, RedisReleaseChannel> channels = new ConcurrentHashMap<>();

	/**
	 * Guards every change of the container's listeners. The container does not guard
	 * them: removing a channel's last listener while a new one is added for the same
	 * channel can drop the new one with the old (it removes the channel's whole entry and
	 * unsubscribes), and the new waiters, believing themselves subscribed, then hear no
	 * release until the holder's lease runs out. Measured: waits of 30 s (the lease) in
	 * one of three runs of the multi-key contract test before, none after.
	 */
	private final ReentrantLock containerChanges = new ReentrantLock();

	/**
	 * Set once by {@link #close()}, before it takes {@link #containerChanges}: no
	 * subscription is made after it.
	 */
	private volatile boolean closed;

	/** Set by {@link #pause()}, before it takes {@link #containerChanges}. */
	private volatile boolean paused;

	/**
	 * Subscribes for the waiters: while Redis is unreachable a subscription waits for it
	 * without bound, so waiters wait for it here only until their deadline.
	 */
	private final ExecutorService subscriptions = Executors.newCachedThreadPool(daemon("distributelock-subscribe"));

	/**
	 * Unsubscribes channels that nobody waits on any more, retries failed subscriptions
	 * later instead of sleeping on a waiter's thread, and ends waits at their deadline.
	 */
	private final ScheduledThreadPoolExecutor background = timers("distributelock-subscribe-recovery");

	private final WaitDeadlines deadlines = new WaitDeadlines(this.background);

	private final RedisAnswerThreads answerThreads;

	RedisReleaseListener(RedisConnectionFactory connectionFactory, RedisAnswerThreads answerThreads) {
		this.answerThreads = answerThreads;
		this.container = new RedisReleaseListenerContainer(connectionFactory);
		// The listener only counts down waiting: run it on the connection's thread.
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setSubscriptionExecutor(this.background);
		this.container.afterPropertiesSet();
		this.container.start();
	}

	/**
	 * What this JVM has heard on {@code channel} so far, taken before an attempt at the
	 * lock, or {@code null} if it is not subscribed to it.
	 */
	@Nullable Heard heard(String channel) {
		RedisReleaseChannel subscription = this.channels.get(channel);
		return (subscription != null && subscription.confirmed) ? new Heard(subscription, subscription.releases.get())
				: null;
	}

	/**
	 * Subscribes to {@code channel} unless it is already, and completes when a message
	 * arrives (a release, or a lease cut shorter), when {@code leaseLeft} finds the lock
	 * free once subscribed or its lease ended since, or at the deadline. Whether the lock
	 * was freed or its lease cut since {@code heardBeforeAttempt} was taken is known
	 * without asking Redis when the channel was subscribed throughout: the message was
	 * heard. Cancelling the wait leaves the channel.
	 * @param leaseLeft how long the key's lease still runs, in milliseconds: 0 or less if
	 * the key is free, {@link Long#MAX_VALUE} if this waiter may not attempt before a
	 * message even when it ends
	 */
	CompletableFuture<Void> await(String channel, Deadline deadline, @Nullable Heard heardBeforeAttempt,
			Supplier<CompletableFuture<Long>> leaseLeft) {
		CompletableFuture<Void> woken = new CompletableFuture<>();
		RedisReleaseChannel subscription = join(channel, woken);
		woken.whenComplete((result, failure) -> leave(subscription, woken));
		expireAt(woken, deadline);
		subscription.subscribed().whenComplete((subscribed, failure) -> {
			if (failure != null) {
				woken.completeExceptionally(failure);
			}
			else if (heardBeforeAttempt != null && heardBeforeAttempt.channel == subscription
					&& subscription.confirmed) {
				if (subscription.releases.get() != heardBeforeAttempt.releases) {
					woken.complete(null);
				}
			}
			else if (!woken.isDone()) {
				leaseLeft.get().whenComplete((millis, checkFailure) -> {
					if (checkFailure != null) {
						woken.completeExceptionally(checkFailure);
					}
					else if (millis <= 0) {
						woken.complete(null);
					}
					else if (millis != Long.MAX_VALUE) {
						// A message sent before the subscription (a lease cut to a
						// minimum hold) was missed: the lease as it is now bounds the
						// wait.
						expireAt(woken, deadline.atMost(Duration.ofMillis(millis).plusMillis(1)));
					}
				});
			}
		});
		return woken;
	}

	private void expireAt(CompletableFuture<Void> woken, Deadline deadline) {
		this.deadlines.expireAt(woken, deadline);
	}

	private RedisReleaseChannel join(String name, CompletableFuture<Void> waiter) {
		Object client = this.container.currentClient();
		return this.channels.compute(name, (key, current) -> {
			RedisReleaseChannel channel = (current != null) ? current
					: new RedisReleaseChannel(key, this.answerThreads);
			channel.waiters++;
			channel.waiting.add(waiter);
			CompletableFuture<Void> subscribed = channel.subscribed;
			boolean onAnOldClient = subscribed != null && subscribed.isDone() && !subscribed.isCompletedExceptionally()
					&& client != null && channel.client != client;
			if (onAnOldClient) {
				// Subscribed on a client the factory has closed since: a release may
				// have gone unheard, so a count taken before does not vouch for it.
				channel.releases.incrementAndGet();
			}
			if (subscribed == null || subscribed.isCompletedExceptionally() || onAnOldClient) {
				boolean retry = (subscribed != null);
				channel.confirmed = false;
				channel.subscribed = CompletableFuture.runAsync(() -> subscribe(channel, retry), this.subscriptions);
			}
			return channel;
		});
	}

	private void leave(RedisReleaseChannel channel, CompletableFuture<Void> waiter) {
		this.channels.computeIfPresent(channel.name, (key, current) -> {
			if (!current.waiting.remove(waiter)) {
				return current;
			}
			current.waiters--;
			if (current.waiters == 0) {
				current.idleSinceNanos = System.nanoTime();
				if (!current.unsubscribeSet) {
					current.unsubscribeSet = scheduleUnsubscribe(current, LINGER.toNanos());
				}
			}
			return current;
		});
	}

	/**
	 * Sets the channel's one unsubscription timer, which waiters coming and going do not
	 * move: each move woke the timer thread, at every hand-off under contention.
	 * @return whether it is set
	 */
	private boolean scheduleUnsubscribe(RedisReleaseChannel channel, long delayNanos) {
		try {
			this.background.schedule(() -> unsubscribeIfIdle(channel), delayNanos, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			// Closing: the container drops every subscription.
			return false;
		}
	}

	private void unsubscribeIfIdle(RedisReleaseChannel channel) {
		AtomicBoolean idle = new AtomicBoolean();
		this.channels.computeIfPresent(channel.name, (key, current) -> {
			if (current != channel) {
				return current;
			}
			if (current.waiters > 0) {
				// The waiter who leaves last sets the timer again.
				current.unsubscribeSet = false;
				return current;
			}
			long idleNanos = System.nanoTime() - current.idleSinceNanos;
			if (idleNanos < LINGER.toNanos()) {
				current.unsubscribeSet = scheduleUnsubscribe(current, LINGER.toNanos() - idleNanos);
				return current;
			}
			idle.set(true);
			return null;
		});
		if (idle.get()) {
			// A new waiter of the channel has a new subscription, which the container
			// keeps whatever the order of the two calls. Removed off the background
			// thread, which must not wait for a subscription in progress.
			channel.subscribed().whenCompleteAsync((result, failure) -> remove(channel), this.subscriptions);
		}
	}

	private void remove(RedisReleaseChannel channel) {
		try {
			this.containerChanges.lock();
			try {
				this.container.removeMessageListener(channel, channel.topic);
			}
			finally {
				this.containerChanges.unlock();
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not unsubscribe from " + channel.name + "; the subscription is renewed or closed "
					+ "with the connection", ex);
		}
	}

	private void subscribe(RedisReleaseChannel channel, boolean retry) {
		this.containerChanges.lock();
		try {
			if (this.closed || this.paused) {
				// The container is destroyed, or its connection factory stopped or soon
				// is: a subscription now would fail, and the container retry it for ever.
				// Failed, the next waiter of the channel subscribes again.
				throw new IllegalStateException(
						"Not subscribing to " + channel.name + ": the Redis lock backend is stopped or closed");
			}
			if (this.keptOpen.compareAndSet(false, true)) {
				this.container.addMessageListener((message, pattern) -> {
				}, KEEP_OPEN);
			}
			Object client = this.container.listenOnCurrentClient();
			if (retry) {
				// After a failed attempt the container may hold the listener without the
				// subscription: start again from nothing.
				this.container.removeMessageListener(channel, channel.topic);
			}
			this.container.addMessageListener(channel, channel.topic);
			if (!this.container.isRunning()) {
				// The connection factory stopped: the container subscribed nothing, or on
				// a connection now closed.
				throw new IllegalStateException(
						"Not subscribed to " + channel.name + ": the Redis connection factory stopped");
			}
			channel.client = client;
		}
		finally {
			this.containerChanges.unlock();
		}
		channel.confirmed = true;
	}

	/**
	 * Makes no more subscriptions, once one under way has ended (waited for a while: one
	 * waiting for a Redis that does not answer waits without bound).
	 */
	void pause() {
		this.paused = true;
		if (awaitSubscriptionUnderWay()) {
			this.containerChanges.unlock();
		}
	}

	void resume() {
		this.paused = false;
	}

	boolean isPaused() {
		return this.paused;
	}

	private boolean awaitSubscriptionUnderWay() {
		try {
			return this.containerChanges.tryLock(SUBSCRIPTION_END_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public void close() throws Exception {
		this.closed = true;
		// Not shutdownNow at once: an interrupt would break a subscription under way,
		// which is waited for instead.
		this.subscriptions.shutdown();
		boolean subscriptionEnded = awaitSubscriptionUnderWay();
		try {
			this.container.destroy();
		}
		finally {
			if (subscriptionEnded) {
				this.containerChanges.unlock();
			}
			this.subscriptions.shutdownNow();
			this.background.shutdownNow();
			// Its timers are dropped with the thread: end the waits they would have
			// ended.
			this.deadlines.close();
		}
	}

	/**
	 * A timer thread that forgets a timer as soon as it is cancelled: nearly every wait
	 * ends by a message long before its deadline (the holder's lease, up to the
	 * watchdog's 30 s), and at thousands of hand-offs a second the cancelled timers, kept
	 * until their time came, held that many waiters' futures for that long.
	 */
	private static ScheduledThreadPoolExecutor timers(String name) {
		ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, daemon(name));
		timers.setRemoveOnCancelPolicy(true);
		return timers;
	}

	/** The timers set and not yet run or cancelled: for tests. */
	int pendingTimers() {
		return this.background.getQueue().size();
	}

	/** The deadlines of waits that have not ended yet: for tests. */
	int pendingDeadlines() {
		return this.deadlines.pendingDeadlines();
	}

	private static ThreadFactory daemon(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * A count of the release messages of one channel, taken before an attempt at the
	 * lock.
	 */
	record Heard(RedisReleaseChannel channel, long releases) {
	}

}
