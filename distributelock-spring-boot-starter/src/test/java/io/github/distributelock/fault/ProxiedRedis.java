package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Two backends on one embedded Redis, per test: one through a {@link TcpProxy} whose
 * traffic a test delays and cuts, and one connected directly, to look at the store
 * meanwhile.
 */
final class ProxiedRedis implements BeforeEachCallback, AfterEachCallback {

	private final EmbeddedRedisExtension redis;

	TcpProxy proxy;

	LettuceConnectionFactory proxiedFactory;

	RedisLockBackend proxied;

	LettuceConnectionFactory directFactory;

	RedisLockBackend direct;

	ProxiedRedis(EmbeddedRedisExtension redis) {
		this.redis = redis;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.proxy = TcpProxy.start(this.redis.port());
		this.proxiedFactory = EmbeddedRedis.connectionFactory(this.proxy.port(), Duration.ofSeconds(10));
		this.proxied = new RedisLockBackend(this.proxiedFactory);
		this.proxied.probe();
		this.directFactory = this.redis.newConnectionFactory();
		this.direct = new RedisLockBackend(this.directFactory);
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		this.proxied.close();
		this.direct.close();
		this.proxiedFactory.destroy();
		this.directFactory.destroy();
		this.proxy.close();
	}

}
