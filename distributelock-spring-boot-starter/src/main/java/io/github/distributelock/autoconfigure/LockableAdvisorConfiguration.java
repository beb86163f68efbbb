package io.github.distributelock.autoconfigure;

import java.util.Map;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.aop.LockKeyResolver;
import io.github.distributelock.aop.LockableAdvisor;
import io.github.distributelock.aop.LockableMethodInterceptor;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;
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

	private static final String TRANSACTION_ADVISOR = "org.springframework.transaction.interceptor."
			+ "BeanFactoryTransactionAttributeSourceAdvisor";

	private final DistributeLockProperties properties;

	LockableAdvisorConfiguration(Environment environment) {
		// Advisors are created early, while bean post-processors are still registered,
		// so they take no ordinary beans: bind the properties they need here, once.
		this.properties = Binder.get(environment).bindOrCreate("distributelock", DistributeLockProperties.class);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	LockKeyResolver lockKeyResolver() {
		String failMessage = this.properties.getFailMessage();
		if (!LockKeyResolver.hasMessage(failMessage)) {
			throw new DistributeLockConfigurationException(
					"distributelock.fail-message is \"" + failMessage + "\", which has no message before its code: "
							+ "callers of a @Lockable method whose lock was not taken would get an empty message.",
					"Set distributelock.fail-message to a message, then optionally '|' and a code, such as "
							+ "\"Please do not submit twice|2101\", or remove it for that default.");
		}
		return new LockKeyResolver(this.properties.getSeparator(), failMessage, this.properties.isFailOnNullField());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	LockableAdvisor lockableAdvisor(LockKeyResolver lockKeyResolver, ObjectProvider<DistributeLock> distributeLock) {
		// Looked up at the first call: advisors are created before ordinary beans.
		LockableMethodInterceptor interceptor = new LockableMethodInterceptor(lockKeyResolver,
				SingletonSupplier.of(distributeLock::getObject));
		return new LockableAdvisor(lockKeyResolver, interceptor, this.properties.getOrder());
	}

	/**
	 * Fails the start when the transaction advisor would run outside {@code @Lockable}:
	 * the lock would then be released before the commit, and the next holder could read
	 * what the transaction has not written yet.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static SmartInitializingSingleton lockableOrderCheck(ListableBeanFactory beans) {
		return () -> checkOrderAgainstTransactions(beans);
	}

	static void checkOrderAgainstTransactions(ListableBeanFactory beans) {
		Map<String, LockableAdvisor> lockable = beans.getBeansOfType(LockableAdvisor.class, false, false);
		if (lockable.size() != 1 || !ClassUtils.isPresent(TRANSACTION_ADVISOR, beans.getClass().getClassLoader())) {
			return;
		}
		int order = lockable.values().iterator().next().getOrder();
		Class<?> transactionAdvisor = ClassUtils.resolveClassName(TRANSACTION_ADVISOR,
				beans.getClass().getClassLoader());
		beans.getBeansOfType(Advisor.class, false, false).forEach((name, advisor) -> {
			if (transactionAdvisor.isInstance(advisor) && advisor instanceof Ordered transactions
					&& transactions.getOrder() <= order) {
				throw new DistributeLockConfigurationException("distributelock.order is " + order
						+ ", not below the order of the transaction advisor '" + name + "' (" + transactions.getOrder()
						+ "): @Lockable would run inside @Transactional and release " + "its lock before the commit.",
						"Set distributelock.order below " + transactions.getOrder()
								+ " (or remove it: the default is Ordered.LOWEST_PRECEDENCE - 100), or raise the order "
								+ "given to @EnableTransactionManagement.");
			}
		});
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
