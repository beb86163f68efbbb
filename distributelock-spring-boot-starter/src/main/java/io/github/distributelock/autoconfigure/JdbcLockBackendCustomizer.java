package io.github.distributelock.autoconfigure;

import io.github.distributelock.jdbc.JdbcLockBackend;

/**
 * Callback interface that can be implemented by beans wishing to customize the settings
 * of the {@link JdbcLockBackend} that the auto-configuration creates, after the
 * {@code distributelock.jdbc.*} properties are applied and before it is created. With
 * {@code distributelock.jdbc.shards}, it is called once for each shard's settings. It is
 * not called when the application defines its own
 * {@link io.github.distributelock.core.LockBackend LockBackend} bean.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface JdbcLockBackendCustomizer {

	/**
	 * Customize the settings.
	 * @param settings the settings to customize
	 */
	void customize(JdbcLockBackendSettings settings);

}
