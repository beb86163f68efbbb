package io.github.distributelock.aop;

import io.github.distributelock.DistributeLock;

import org.springframework.aop.framework.ProxyFactory;

/**
 * A class proxy of an object with {@link io.github.distributelock.Lockable @Lockable}
 * methods, advised as the starter's advisor does, for tests of the interceptor without an
 * application context.
 */
final class LockableProxies {

	private LockableProxies() {
	}

	@SuppressWarnings("unchecked")
	static <T> T proxy(T target, DistributeLock lock) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LockableMethodInterceptor(new LockKeyResolver("_", "busy|1"), () -> lock));
		return (T) factory.getProxy();
	}

}
