package io.github.distributelock.autoconfigure;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.aop.LockKeyResolver;
import io.github.distributelock.aop.LockableAdvisor;
import io.github.distributelock.aop.LockableMethodInterceptor;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

/**
 * The advisor that applies {@link io.github.distributelock.Lockable @Lockable}, ordered
 * outside the transaction advisor.
 *
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(LockableAdvisorConfiguration.AutoProxyRegistrar.class)
class LockableAdvisorConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockKeyResolver lockKeyResolver(Environment environment) {
		DistributeLockProperties defaults = new DistributeLockProperties();
		return new LockKeyResolver(environment.getProperty("distributelock.separator", defaults.getSeparator()),
				environment.getProperty("distributelock.fail-message", defaults.getFailMessage()), environment
					.getProperty("distributelock.fail-on-null-field", Boolean.class, defaults.isFailOnNullField()));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockableAdvisor lockableAdvisor(LockKeyResolver lockKeyResolver,
			ObjectProvider<DistributeLock> distributeLock, Environment environment) {
		// Looked up at the first call: advisors are created before ordinary beans.
		LockableMethodInterceptor interceptor = new LockableMethodInterceptor(lockKeyResolver,
				SingletonSupplier.of(distributeLock::getObject));
		int order = environment.getProperty("distributelock.order", Integer.class,
				new DistributeLockProperties().getOrder());
		return new LockableAdvisor(lockKeyResolver, interceptor, order);
	}

	/**
	 * Makes sure an auto-proxy creator exists, as {@code @EnableTransactionManagement}
	 * does, so {@code @Lockable} works without AspectJ on the classpath.
	 */
	static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

		private boolean proxyTargetClass = true;

		@Override
		public void setEnvironment(Environment environment) {
			this.proxyTargetClass = environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true);
		}

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
			if (this.proxyTargetClass) {
				AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
			}
		}

	}

}
