package io.github.distributelock.aop;

import java.lang.reflect.Proxy;

import io.github.distributelock.Lockable;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Lockable @Lockable} on the interface of a bean that is itself a JDK proxy, as a
 * MyBatis mapper or an HTTP interface client is, or a lambda: the key is built from the
 * interface method's parameters, which the class of the proxy or the lambda has no names
 * for.
 */
class LockableOnJdkProxyBeanTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis")
		.withUserConfiguration(MapperConfiguration.class);

	@Test
	void aMethodOfAProxiedInterfaceIsLockedUnderTheKeyOfItsNamedParameters() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			MemoryLockBackend store = context.getBean(MemoryLockBackend.class);
			assertThat(context.getBean(UserMapper.class).update(42L)).isEqualTo("user.update_42 locked: true");
			assertThat(store.isLocked("user.update_42")).isFalse();
		});
	}

	@Test
	void aMethodOfAnInterfaceImplementedByALambdaIsLockedUnderTheKeyOfItsNamedParameters() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			MemoryLockBackend store = context.getBean(MemoryLockBackend.class);
			assertThat(context.getBean(UserHandler.class).handle(7L)).isEqualTo("user.handle_7 locked: true");
			assertThat(store.isLocked("user.handle_7")).isFalse();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class MapperConfiguration {

		@Bean
		UserHandler userHandler(MemoryLockBackend store) {
			return (userId) -> "user.handle_" + userId + " locked: " + store.isLocked("user.handle_" + userId);
		}

		@Bean
		MemoryLockBackend memoryLockBackend() {
			return new MemoryLockBackend();
		}

		@Bean
		UserMapper userMapper(MemoryLockBackend store) {
			return (UserMapper) Proxy.newProxyInstance(UserMapper.class.getClassLoader(),
					new Class<?>[] { UserMapper.class }, (proxy, method, arguments) -> {
						if (!method.getName().equals("update")) {
							return method.invoke(store, arguments);
						}
						String key = "user.update_" + arguments[0];
						return key + " locked: " + store.isLocked(key);
					});
		}

	}

	@FunctionalInterface
	public interface UserHandler {

		@Lockable(key = "user.handle", fields = "userId")
		String handle(Long userId);

	}

	public interface UserMapper {

		@Lockable(key = "user.update", fields = "userId")
		String update(Long userId);

	}

}
