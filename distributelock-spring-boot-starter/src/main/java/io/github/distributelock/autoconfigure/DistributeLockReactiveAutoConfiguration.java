package io.github.distributelock.autoconfigure;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of a {@link ReactiveDistributeLock} over the {@link DistributeLock},
 * where Reactor is on the class path.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DistributeLockAutoConfiguration.class)
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(DistributeLock.class)
public final class DistributeLockReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReactiveDistributeLock reactiveDistributeLock(ObjectProvider<DistributeLock> distributeLock) {
		return new DefaultReactiveDistributeLock(SingletonSupplier.of(distributeLock::getObject));
	}

}
