package io.github.distributelock.redis;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Counts the dropped command connections of the factory's Redis client, so that a call
 * can tell whether Lettuce may have sent it twice: it sends the commands of a connection
 * that dropped before their answers again once it is back, and a copy of a release whose
 * first run deleted the lock finds it gone.
 * <p>
 * Only drops that Lettuce reconnects after, of connections that carry commands, are
 * counted: a connection closed on purpose (the application's own, for a transaction or a
 * blocking command, once done) fails what it still had instead of sending it again, and
 * no lock call is sent on a subscriber connection. Counted, either made a release that
 * found its lease run out (nobody having taken the key since) count as released, and the
 * loss went unreported. Lettuce marks a connection closed before its channel closes.
 * <p>
 * Lettuce tells its listeners on the connection's event loop, before the handler that
 * connects again sees the connection drop: a count read at a call's answer includes every
 * drop that made the client send the call again.
 */
final class RedisDisconnections implements RedisConnectionStateListener, AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final AtomicLong count = new AtomicLong();

	/** The client listened to; a factory stopped and started again has a new one. */
	private final AtomicReference<@Nullable AbstractRedisClient> client = new AtomicReference<>();

	RedisDisconnections(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * How many connections of the client dropped so far, listening to the factory's
	 * client first if it is new: read before a call is sent and at its answer.
	 * @return the count, which only grows
	 */
	long count() {
		listen();
		return this.count.get();
	}

	private void listen() {
		if (!this.connectionFactory.isRunning()) {
			// It has no client: a call to it fails before it is sent.
			return;
		}
		AbstractRedisClient current = this.connectionFactory.getNativeClient();
		AbstractRedisClient known = this.client.get();
		if (current != known && this.client.compareAndSet(known, current)) {
			// One caller swaps the client and moves the listener; a client the factory
			// dropped fails the calls it had in flight instead of sending them again.
			current.addListener(this);
			if (known != null) {
				known.removeListener(this);
			}
		}
	}

	@Override
	public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
		if (!connection.isClosed() && !(connection instanceof StatefulRedisPubSubConnection<?, ?>)) {
			this.count.incrementAndGet();
		}
	}

	@Override
	public void close() {
		AbstractRedisClient known = this.client.get();
		if (known != null) {
			known.removeListener(this);
		}
	}

}
