package io.github.distributelock.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The stores {@code distributelock.type} can name, with what each needs on the classpath.
 */
enum LockType {

	REDIS("org.springframework.boot:spring-boot-starter-data-redis (Spring Data Redis with Lettuce)",
			"org.springframework.data.redis.connection.RedisConnectionFactory", "io.lettuce.core.RedisClient"),

	ZOOKEEPER("org.apache.curator:curator-framework", "org.apache.curator.framework.CuratorFramework"),

	JDBC("org.springframework.boot:spring-boot-starter-jdbc", "org.springframework.jdbc.core.JdbcTemplate");

	final String dependency;

	final List<String> requiredClasses;

	LockType(String dependency, String... requiredClasses) {
		this.dependency = dependency;
		this.requiredClasses = List.of(requiredClasses);
	}

	/** The first class this store needs that the class loader cannot find. */
	Optional<String> missingClass(@Nullable ClassLoader classLoader) {
		return this.requiredClasses.stream().filter((name) -> !ClassUtils.isPresent(name, classLoader)).findFirst();
	}

	String propertyValue() {
		return name().toLowerCase(Locale.ROOT);
	}

	static @Nullable LockType of(String value) {
		for (LockType type : values()) {
			if (type.propertyValue().equalsIgnoreCase(value.trim())) {
				return type;
			}
		}
		return null;
	}

	static String validValues() {
		return Arrays.stream(values()).map(LockType::propertyValue).collect(Collectors.joining(", "));
	}

}
