package io.github.distributelock.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A real redis-server for the tests of one class: started before the first test on a free
 * loopback port, stopped after the last one, also when tests fail. <pre class="code">
 * &#64;RegisterExtension
 * static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();
 * </pre>
 */
public final class EmbeddedRedisExtension implements BeforeAllCallback, AfterAllCallback {

	private EmbeddedRedis redis;

	private LettuceConnectionFactory inspectionConnection;

	private StringRedisTemplate store;

	@Override
	public void beforeAll(ExtensionContext context) {
		this.redis = EmbeddedRedis.start();
		this.inspectionConnection = this.redis.newConnectionFactory();
		this.store = new StringRedisTemplate(this.inspectionConnection);
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		try {
			if (this.inspectionConnection != null) {
				this.inspectionConnection.destroy();
			}
		}
		finally {
			if (this.redis != null) {
				this.redis.close();
			}
		}
	}

	/** A template on a connection of its own, to read the store directly. */
	public StringRedisTemplate store() {
		return this.store;
	}

	public int port() {
		return this.redis.port();
	}

	public LettuceConnectionFactory newConnectionFactory() {
		return this.redis.newConnectionFactory();
	}

}
