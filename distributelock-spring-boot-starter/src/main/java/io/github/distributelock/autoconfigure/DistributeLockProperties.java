package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/**
 * Configuration properties for distributelock.
 *
 * @since 1.0.0
 */
@ConfigurationProperties("distributelock")
public class DistributeLockProperties {

	/**
	 * Whether to enable the distributed lock.
	 */
	private boolean enabled = true;

	/**
	 * Store that holds the locks: redis, zookeeper or jdbc.
	 */
	private @Nullable String type;

	/**
	 * Lease of locks taken without a fixed lease, renewed every third of it while the
	 * holder lives; at least 100ms.
	 */
	private Duration watchdogLease = DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE;

	/**
	 * Whether releasing a lock that was lost while held throws LockLostException instead
	 * of logging it: from close() and a blocking @Lockable method, and as the error that
	 * ends a reactive one; a @Lockable future has completed when its lock is released, so
	 * its loss is logged.
	 */
	private boolean throwOnLost;

	/**
	 * Message and optional code, as "message|code", of the LockFailedException thrown by
	 * a @Lockable method without failMsg; the message must not be empty.
	 */
	private String failMessage = "Please do not submit twice|2101";

	/**
	 * Text between the lock name and each field value in a @Lockable lock key.
	 */
	private String separator = "_";

	/**
	 * Whether a @Lockable call fails with an IllegalArgumentException, before locking,
	 * when a field value (or an object on its path) is null, instead of writing "null"
	 * into the lock key as the original starter did.
	 */
	private boolean failOnNullField;

	/**
	 * Order of the @Lockable advisor; it must run before (outside) the transaction
	 * advisor so the lock is released after commit.
	 */
	private int order = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * What to do when the application starts about a lock store that does not answer:
	 * warn to probe it once in the background and log a warning, fail to probe it before
	 * the application starts and stop the startup, none not to probe it.
	 */
	private StartupCheck startupCheck = StartupCheck.WARN;

	private final Redis redis = new Redis();

	private final Zookeeper zookeeper = new Zookeeper();

	private final Jdbc jdbc = new Jdbc();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getType() {
		return this.type;
	}

	public void setType(@Nullable String type) {
		this.type = type;
	}

	public Duration getWatchdogLease() {
		return this.watchdogLease;
	}

	public void setWatchdogLease(Duration watchdogLease) {
		this.watchdogLease = watchdogLease;
	}

	public boolean isThrowOnLost() {
		return this.throwOnLost;
	}

	public void setThrowOnLost(boolean throwOnLost) {
		this.throwOnLost = throwOnLost;
	}

	public String getFailMessage() {
		return this.failMessage;
	}

	public void setFailMessage(String failMessage) {
		this.failMessage = failMessage;
	}

	public String getSeparator() {
		return this.separator;
	}

	public void setSeparator(String separator) {
		this.separator = separator;
	}

	public boolean isFailOnNullField() {
		return this.failOnNullField;
	}

	public void setFailOnNullField(boolean failOnNullField) {
		this.failOnNullField = failOnNullField;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public StartupCheck getStartupCheck() {
		return this.startupCheck;
	}

	public void setStartupCheck(StartupCheck startupCheck) {
		this.startupCheck = startupCheck;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Zookeeper getZookeeper() {
		return this.zookeeper;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	/**
	 * Redis backend properties; the connection itself is configured by Spring Boot's
	 * spring.data.redis properties.
	 */
	public static class Redis {

		/**
		 * Text before each lock key in Redis.
		 */
		private String keyPrefix = RedisLockBackend.DEFAULT_KEY_PREFIX;

		/**
		 * How long the fencing counter of a key is kept after its last acquisition (and
		 * the last releases of its readers and permit holders after the last of them); at
		 * least 1ms, at most 100000000000d (what Redis can count).
		 */
		private Duration fenceIdleTimeout = RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT;

		/**
		 * Number of replicas that must acknowledge each acquisition and renewal (Redis
		 * WAIT) before a lock counts as held; an acquisition that too few acknowledge in
		 * time is released and fails. 0 not to wait for replicas.
		 */
		private int minReplicasToAck;

		/**
		 * How long to wait for the replicas to acknowledge when min-replicas-to-ack is
		 * set; must be below spring.data.redis.timeout and below watchdog-lease.
		 */
		private Duration replicaAckTimeout = RedisLockBackend.DEFAULT_REPLICA_ACK_TIMEOUT;

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public Duration getFenceIdleTimeout() {
			return this.fenceIdleTimeout;
		}

		public void setFenceIdleTimeout(Duration fenceIdleTimeout) {
			this.fenceIdleTimeout = fenceIdleTimeout;
		}

		public int getMinReplicasToAck() {
			return this.minReplicasToAck;
		}

		public void setMinReplicasToAck(int minReplicasToAck) {
			this.minReplicasToAck = minReplicasToAck;
		}

		public Duration getReplicaAckTimeout() {
			return this.replicaAckTimeout;
		}

		public void setReplicaAckTimeout(Duration replicaAckTimeout) {
			this.replicaAckTimeout = replicaAckTimeout;
		}

	}

	/**
	 * ZooKeeper backend properties, used when the application defines no CuratorFramework
	 * bean.
	 */
	public static class Zookeeper {

		/**
		 * Comma-separated host:port pairs of the ZooKeeper ensemble.
		 */
		private @Nullable String connectString;

		/**
		 * Parent node of the lock nodes: an absolute path without a trailing slash,
		 * outside /zookeeper, which ZooKeeper keeps for its own nodes (unless a chroot in
		 * the connect string or a namespace moves it).
		 */
		private String root = ZooKeeperLockBackend.DEFAULT_ROOT;

		/**
		 * Session timeout, at least 1s; a holder whose session expires loses its locks.
		 */
		private Duration sessionTimeout = Duration.ofSeconds(60);

		/**
		 * Connection timeout.
		 */
		private Duration connectionTimeout = Duration.ofSeconds(15);

		/**
		 * Initial sleep between connection retries, doubled at each retry.
		 */
		private Duration baseSleep = Duration.ofSeconds(1);

		/**
		 * Maximum number of connection retries, from 0 to 29 (Curator's limit).
		 */
		private int maxRetries = 3;

		/**
		 * Digest authentication as "user:password", neither part empty.
		 */
		private @Nullable String digest;

		public @Nullable String getConnectString() {
			return this.connectString;
		}

		public void setConnectString(@Nullable String connectString) {
			this.connectString = connectString;
		}

		public String getRoot() {
			return this.root;
		}

		public void setRoot(String root) {
			this.root = root;
		}

		public Duration getSessionTimeout() {
			return this.sessionTimeout;
		}

		public void setSessionTimeout(Duration sessionTimeout) {
			this.sessionTimeout = sessionTimeout;
		}

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

		public Duration getBaseSleep() {
			return this.baseSleep;
		}

		public void setBaseSleep(Duration baseSleep) {
			this.baseSleep = baseSleep;
		}

		public int getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
		}

		public @Nullable String getDigest() {
			return this.digest;
		}

		public void setDigest(@Nullable String digest) {
			this.digest = digest;
		}

	}

	/**
	 * JDBC backend properties; the database is the application's DataSource.
	 */
	public static class Jdbc {

		/**
		 * Name of the lock table, optionally qualified by a schema; its sequence (on
		 * MySQL, its counter table) is named after it with a "_seq" suffix.
		 */
		private String tableName = JdbcLockBackend.DEFAULT_TABLE_NAME;

		/**
		 * Database schema initialization mode.
		 */
		private SchemaInitializationMode initializeSchema = SchemaInitializationMode.EMBEDDED;

		/**
		 * SQL dialect of the lock statements: postgresql, h2, mariadb or mysql.
		 * Auto-detected from the database by default; a dialect that does not fit the
		 * database fails the startup.
		 */
		private @Nullable String dialect;

		/**
		 * How long the row of a released or expired lock is kept before it is deleted.
		 * While the row is kept, the next acquisition of the key takes it over and draws
		 * its fencing token under the row lock (on MySQL, takes it over only with a
		 * larger token), which keeps tokens in acquisition order; keep it longer than any
		 * lock statement can stall inside the database (on MySQL, any attempt between its
		 * statements). At least 1ms: the statements count it in whole milliseconds.
		 */
		private Duration releasedRowRetention = JdbcLockBackend.Defaults.RELEASED_ROW_RETENTION;

		/**
		 * The longest one lock statement may run (rounded up to whole seconds, 0 for no
		 * bound): a statement the database keeps waiting longer, such as for the row lock
		 * of a transaction whose client stalled, fails, and the lock call goes on as
		 * after any store error instead of hanging. Keep it well below the released-row
		 * retention (0 or longer is logged as a warning). On PostgreSQL a statement still
		 * running at twice it (a server that answers neither it nor its cancel) has its
		 * connection aborted. Not applied on H2, whose own LOCK_TIMEOUT ends such waits.
		 */
		private Duration statementTimeout = JdbcLockBackend.Defaults.STATEMENT_TIMEOUT;

		/**
		 * Whether, on PostgreSQL, a release notifies the waiters of other instances
		 * (NOTIFY) and waiters are woken by one LISTEN connection per instance, borrowed
		 * from the DataSource while the instance has waiters, instead of polling. Other
		 * databases always poll.
		 */
		private boolean releaseNotifications = true;

		/**
		 * Names of the DataSource beans whose databases hold the lock table as shards, in
		 * order: each lock key lives in the database its hash picks (CRC32 of the key's
		 * UTF-8 bytes modulo the number of shards). Each database records the list, and a
		 * start with another list is refused unless shards-changed-drained is set. Only
		 * with distributelock.type=jdbc and no LockBackend bean of the application's:
		 * otherwise the start is refused.
		 */
		private List<String> shards = new ArrayList<>();

		/**
		 * Whether to accept, and record, a shard list that differs from the one the
		 * databases recorded, because no lock is held under the old list any more (every
		 * instance stopped, or its locks released). Changing the list moves keys to other
		 * databases.
		 */
		private boolean shardsChangedDrained;

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public SchemaInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public @Nullable String getDialect() {
			return this.dialect;
		}

		public void setDialect(@Nullable String dialect) {
			this.dialect = dialect;
		}

		public Duration getReleasedRowRetention() {
			return this.releasedRowRetention;
		}

		public void setReleasedRowRetention(Duration releasedRowRetention) {
			this.releasedRowRetention = releasedRowRetention;
		}

		public Duration getStatementTimeout() {
			return this.statementTimeout;
		}

		public void setStatementTimeout(Duration statementTimeout) {
			this.statementTimeout = statementTimeout;
		}

		public boolean isReleaseNotifications() {
			return this.releaseNotifications;
		}

		public void setReleaseNotifications(boolean releaseNotifications) {
			this.releaseNotifications = releaseNotifications;
		}

		public List<String> getShards() {
			return this.shards;
		}

		public void setShards(List<String> shards) {
			this.shards = shards;
		}

		public boolean isShardsChangedDrained() {
			return this.shardsChangedDrained;
		}

		public void setShardsChangedDrained(boolean shardsChangedDrained) {
			this.shardsChangedDrained = shardsChangedDrained;
		}

	}

	/**
	 * When to create the lock table, as Spring Boot's {@code DatabaseInitializationMode}
	 * does for its own schemas (a type of its own so that these properties load without
	 * Spring Boot's SQL module).
	 */
	public enum SchemaInitializationMode {

		/**
		 * Always create the lock table unless it exists.
		 */
		ALWAYS,

		/**
		 * Create the lock table only in an embedded, in-memory database.
		 */
		EMBEDDED,

		/**
		 * Never create the lock table.
		 */
		NEVER

	}

	/**
	 * What to do when the application starts about a lock store that does not answer.
	 */
	public enum StartupCheck {

		/**
		 * Probe the store once, in the background so that the startup does not wait, and
		 * log a warning if it does not answer.
		 */
		WARN,

		/**
		 * Probe the store before the application starts, and stop the startup if it does
		 * not answer.
		 */
		FAIL,

		/**
		 * Do not probe the store at startup.
		 */
		NONE

	}

}
