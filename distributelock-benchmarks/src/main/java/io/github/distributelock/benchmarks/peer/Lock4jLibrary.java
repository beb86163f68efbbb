package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.List;

import com.baomidou.lock.LockInfo;
import com.baomidou.lock.LockTemplate;
import com.baomidou.lock.executor.RedisTemplateLockExecutor;
import com.baomidou.lock.spring.boot.autoconfigure.Lock4jProperties;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * lock4j's {@link LockTemplate} over its {@link RedisTemplateLockExecutor}, built by hand
 * as its auto-configuration (which loads on Spring Boot 4.1) builds it, and called as
 * {@code lockTemplate.lock(key)} is: a fixed 30 s lease, retries every 100 ms while
 * waiting.
 * <p>
 * <b>Note:</b> the renewed lease ({@code expire = -1}, the default of {@code @Lock4j})
 * starts a new {@link java.util.Timer}, a thread, for every acquisition on this executor,
 * which a run of 100,000 keys cannot afford; it is left out.
 */
public final class Lock4jLibrary implements LockLibrary {

	/** What this adapter runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("lock4j",
			"`LockTemplate` over `RedisTemplateLockExecutor` on a Spring Data Redis `LettuceConnectionFactory`, built "
					+ "as its auto-configuration builds them, with `Lock4jProperties` defaults",
			"a fixed 30 s lease (`lockTemplate.lock(key)`'s default); waiting retries every 100 ms",
			"`lockTemplate.lock(key, 0, wait)`; unlock `releaseLock(info)`");

	private final LettuceConnectionFactory connectionFactory;

	private final LockTemplate template;

	public Lock4jLibrary(Endpoints endpoints) throws Exception {
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
		LockInfo info = this.template.lock(key, 0, wait.toMillis());
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
