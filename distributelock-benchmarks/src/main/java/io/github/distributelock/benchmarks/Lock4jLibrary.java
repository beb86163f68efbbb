package io.github.distributelock.benchmarks;

import java.time.Duration;
import java.util.List;

import com.baomidou.lock.LockInfo;
import com.baomidou.lock.LockTemplate;
import com.baomidou.lock.executor.RedisTemplateLockExecutor;
import com.baomidou.lock.spring.boot.autoconfigure.Lock4jProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * lock4j's {@link LockTemplate} over its {@link RedisTemplateLockExecutor}, built by hand
 * as its Spring Boot 3 auto-configuration would build it (that auto-configuration does
 * not load on Spring Boot 4), with its defaults: a 30 s lease that is not renewed,
 * retries every 100 ms while waiting.
 */
final class Lock4jLibrary implements LockLibrary {

	private final LettuceConnectionFactory connectionFactory;

	private final LockTemplate template;

	Lock4jLibrary(Endpoints endpoints) throws Exception {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", endpoints.redisPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		Lock4jProperties properties = new Lock4jProperties();
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		this.template = new LockTemplate();
		this.template.setProperties(properties);
		this.template.setExecutors(List.of(new RedisTemplateLockExecutor(redis, properties)));
		this.template.afterPropertiesSet();
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) {
		LockInfo info = this.template.lock(key, -1, wait.toMillis());
		if (info == null) {
			return null;
		}
		return () -> this.template.releaseLock(info);
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
