package io.github.distributelock.redis;

import org.springframework.context.Lifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
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
 */
final class RedisReleaseListenerContainer extends RedisMessageListenerContainer {

	private final RedisConnectionFactory connectionFactory;

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

}
