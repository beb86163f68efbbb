package io.github.distributelock.redis;

import io.lettuce.core.AbstractRedisClient;
import org.jspecify.annotations.Nullable;

import org.springframework.context.Lifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Spring Data Redis's listener container, not running once its connection factory has
 * stopped, which the container itself does not see (Spring Data Redis 4.1).
 * <p>
 * The factory stops in lifecycle phase 0 of a context's close, long before this backend
 * is closed. A subscription under way then failed on its closed connection, and the
 * container, still running, logged {@code SubscriptionTask aborted with exception} at
 * ERROR, or retried a connection failure every 5 s until the backend closed. The pause of
 * the release subscriptions before phase 0 only narrows this: it waits a bounded time,
 * and needs the backend to be the {@code RedisLockBackend} bean itself, not one wrapped
 * in another backend. Not running, the container fails the subscription to its caller
 * without logging it or retrying, and makes no new one.
 * <p>
 * A factory stopped and started again (a context's {@code stop()} then {@code start()},
 * which leaves the lock service running) connects with a new client, on which the
 * container has subscribed nothing while it still believes itself listening on the old
 * client's closed connection: {@link #listenOnCurrentClient()} starts it again there.
 */
final class RedisReleaseListenerContainer extends RedisMessageListenerContainer {

	private final RedisConnectionFactory connectionFactory;

	/** The client the container subscribed on last; guarded by the caller's lock. */
	private @Nullable AbstractRedisClient listeningClient;

	RedisReleaseListenerContainer(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		setConnectionFactory(connectionFactory);
	}

	/**
	 * Whether the container is started and its connection factory running. Its state
	 * leaves "running" before the factory closes a connection, so a subscription that
	 * failed because the factory stopped always finds the container not running.
	 */
	@Override
	public boolean isRunning() {
		return super.isRunning() && (!(this.connectionFactory instanceof Lifecycle factory) || factory.isRunning());
	}

	/**
	 * The client the connection factory connects with now, or {@code null} while it is
	 * not running (or is not a Lettuce factory). Cheap and non-blocking: read by every
	 * waiter.
	 */
	@Nullable AbstractRedisClient currentClient() {
		if (!(this.connectionFactory instanceof LettuceConnectionFactory lettuce) || !lettuce.isRunning()) {
			return null;
		}
		try {
			return lettuce.getNativeClient();
		}
		catch (IllegalStateException ex) {
			// Stopped since isRunning(): that is the answer, not a failure.
			return null;
		}
	}

	/**
	 * Before a subscription: if the factory connects with another client than the one the
	 * container subscribed on, stops the container (closing what is left of the old
	 * subscriber connection) and starts it again, which subscribes every channel it has
	 * listeners for on the new client. Blocks for those subscriptions (up to the
	 * container's registration wait), so it is called off the waiters' threads only.
	 * @return the client subscribed on, or {@code null} while the factory is not running
	 */
	@Nullable AbstractRedisClient listenOnCurrentClient() {
		AbstractRedisClient client = currentClient();
		if (client != null && this.listeningClient != null && client != this.listeningClient && super.isRunning()) {
			stop();
			start();
		}
		if (client != null) {
			this.listeningClient = client;
		}
		return client;
	}

}
