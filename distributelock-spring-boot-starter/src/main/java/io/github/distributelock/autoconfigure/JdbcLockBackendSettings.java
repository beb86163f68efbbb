package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.jdbc.JdbcLockBackend;
import org.jspecify.annotations.Nullable;

/**
 * The settings from which the auto-configuration creates the {@link JdbcLockBackend}, on
 * the application's {@link javax.sql.DataSource DataSource}: first the
 * {@code distributelock.jdbc.*} properties, then what each
 * {@link JdbcLockBackendCustomizer} changes.
 *
 * @since 1.0.0
 */
public final class JdbcLockBackendSettings {

	private String tableName;

	private @Nullable String dialect;

	private Duration releasedRowRetention;

	private Duration statementTimeout;

	private boolean releaseNotifications;

	private final DistributeLockProperties.Jdbc properties;

	JdbcLockBackendSettings(DistributeLockProperties.Jdbc properties) {
		this.properties = properties;
		this.tableName = properties.getTableName();
		this.dialect = properties.getDialect();
		this.releasedRowRetention = properties.getReleasedRowRetention();
		this.statementTimeout = properties.getStatementTimeout();
		this.releaseNotifications = properties.isReleaseNotifications();
	}

	/**
	 * The lock table, a plain identifier optionally qualified by a schema.
	 * @return the table name
	 */
	public String getTableName() {
		return this.tableName;
	}

	/**
	 * Sets the lock table; its sequence (on MySQL, its counter table) is named after it
	 * with a {@code _seq} suffix.
	 * @param tableName the table name, a plain identifier optionally qualified by a
	 * schema
	 */
	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	/**
	 * The SQL dialect, one of {@link JdbcLockBackend#supportedDialects()}, or
	 * {@code null} to detect it from the database.
	 * @return the dialect
	 */
	public @Nullable String getDialect() {
		return this.dialect;
	}

	/**
	 * Sets the SQL dialect.
	 * @param dialect one of {@link JdbcLockBackend#supportedDialects()}, or {@code null}
	 * to detect it from the database
	 */
	public void setDialect(@Nullable String dialect) {
		this.dialect = dialect;
	}

	/**
	 * How long the row of a released or expired lock is kept before it is deleted.
	 * @return the retention
	 */
	public Duration getReleasedRowRetention() {
		return this.releasedRowRetention;
	}

	/**
	 * Sets how long the row of a released or expired lock is kept before it is deleted;
	 * longer than any lock statement can stall inside the database.
	 * @param releasedRowRetention the retention, positive
	 */
	public void setReleasedRowRetention(Duration releasedRowRetention) {
		this.releasedRowRetention = releasedRowRetention;
	}

	/**
	 * The longest one lock statement may run, or zero for no bound.
	 * @return the statement timeout
	 */
	public Duration getStatementTimeout() {
		return this.statementTimeout;
	}

	/**
	 * Sets the longest one lock statement may run (see
	 * {@link JdbcLockBackend#setStatementTimeout(Duration)}).
	 * @param statementTimeout the timeout, rounded up to whole seconds, or zero for no
	 * bound
	 */
	public void setStatementTimeout(Duration statementTimeout) {
		this.statementTimeout = statementTimeout;
	}

	/**
	 * Whether a release on PostgreSQL notifies the waiters of every instance
	 * ({@code NOTIFY}), which then wake at once instead of at their next poll.
	 * @return whether releases notify
	 */
	public boolean isReleaseNotifications() {
		return this.releaseNotifications;
	}

	/**
	 * Sets whether a release on PostgreSQL notifies the waiters of every instance.
	 * @param releaseNotifications whether releases notify
	 */
	public void setReleaseNotifications(boolean releaseNotifications) {
		this.releaseNotifications = releaseNotifications;
	}

	/** What the customizers changed, such as {@code "tableName to x"}. */
	List<String> changedByCustomizers() {
		List<String> changes = new ArrayList<>();
		CustomizedSettings.addIfChanged(changes, "tableName", this.properties.getTableName(), this.tableName);
		CustomizedSettings.addIfChanged(changes, "dialect", this.properties.getDialect(), this.dialect);
		CustomizedSettings.addIfChanged(changes, "releasedRowRetention", this.properties.getReleasedRowRetention(),
				this.releasedRowRetention);
		CustomizedSettings.addIfChanged(changes, "statementTimeout", this.properties.getStatementTimeout(),
				this.statementTimeout);
		CustomizedSettings.addIfChanged(changes, "releaseNotifications", this.properties.isReleaseNotifications(),
				this.releaseNotifications);
		return changes;
	}

}
