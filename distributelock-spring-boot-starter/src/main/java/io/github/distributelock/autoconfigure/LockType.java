package io.github.distributelock.autoconfigure;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * The stores {@code distributelock.type} can name, with what each needs on the classpath.
 */
enum LockType {

	REDIS("org.springframework.data.redis.connection.RedisConnectionFactory",
			"org.springframework.boot:spring-boot-starter-data-redis"),

	ZOOKEEPER("org.apache.curator.framework.CuratorFramework", "org.apache.curator:curator-framework"),

	JDBC("org.springframework.jdbc.core.JdbcTemplate", "org.springframework.boot:spring-boot-starter-jdbc");

	final String requiredClass;

	final String dependency;

	LockType(String requiredClass, String dependency) {
		this.requiredClass = requiredClass;
		this.dependency = dependency;
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
