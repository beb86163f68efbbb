package io.github.distributelock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs of distributelock beyond what Spring finds by itself: the
 * Redis Lua scripts and each JDBC dialect's SQL statements and schema, read as classpath
 * resources.
 *
 */
class DistributeLockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern("io/github/distributelock/**/*.lua")
			.registerPattern("io/github/distributelock/**/*.sql");
	}

}
