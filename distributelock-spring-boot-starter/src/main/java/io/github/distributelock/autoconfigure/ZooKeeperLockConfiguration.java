package io.github.distributelock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.ensemble.fixed.FixedEnsembleProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.data.ACL;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * The ZooKeeper backend, on the application's {@link CuratorFramework} or on one built
 * from the {@code distributelock.zookeeper.*} properties and started and closed with the
 * context.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(CuratorFramework.class)
@ConditionalOnProperty(name = "distributelock.type", havingValue = "zookeeper")
class ZooKeeperLockConfiguration {

	static final Duration SHORTEST_SESSION_TIMEOUT = Duration.ofSeconds(1);

	/** The most retries {@link ExponentialBackoffRetry} makes, its own limit. */
	static final int MOST_RETRIES = 29;

	/**
	 * The node ZooKeeper keeps its own nodes under ({@code /zookeeper/config},
	 * {@code /zookeeper/quota}), a name its documentation reserves.
	 */
	static final String RESERVED_ROOT = "/zookeeper";

	/** The name of the client built from the properties when the application has none. */
	private static final String BUILT_CLIENT = "distributeLockCuratorFramework";

	@Bean(name = BUILT_CLIENT, initMethod = "start", destroyMethod = "close")
	@ConditionalOnMissingBean
	CuratorFramework distributeLockCuratorFramework(DistributeLockProperties properties,
			ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) {
		DistributeLockProperties.Zookeeper zookeeper = properties.getZookeeper();
		String connectString = zookeeper.getConnectString();
		if (!StringUtils.hasText(connectString)) {
			throw new DistributeLockConfigurationException(
					"distributelock.type=zookeeper needs distributelock.zookeeper.connect-string or a "
							+ "CuratorFramework bean, and the application has neither.",
					"Set distributelock.zookeeper.connect-string to the host:port pairs of the ZooKeeper ensemble, "
							+ "such as zk1:2181,zk2:2181,zk3:2181, or define a CuratorFramework bean.");
		}
		checkConnectString(connectString);
		if (zookeeper.getMaxRetries() < 0) {
			throw new DistributeLockConfigurationException(
					"distributelock.zookeeper.max-retries is " + zookeeper.getMaxRetries() + ", below 0.",
					"Set distributelock.zookeeper.max-retries to 0 (no retries) or more (3 by default).");
		}
		if (zookeeper.getMaxRetries() > MOST_RETRIES) {
			// Curator would log a warning and make 29, which the reader of the property
			// would not expect.
			throw new DistributeLockConfigurationException(
					"distributelock.zookeeper.max-retries is " + zookeeper.getMaxRetries() + ", above " + MOST_RETRIES
							+ ", the most Curator's ExponentialBackoffRetry makes: it would make " + MOST_RETRIES + ".",
					"Set distributelock.zookeeper.max-retries to at most " + MOST_RETRIES + " (3 by default).");
		}
		int sessionTimeoutMs = sessionTimeoutMillis(zookeeper.getSessionTimeout());
		int connectionTimeoutMs = millis(zookeeper.getConnectionTimeout(), "connection-timeout");
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(sessionTimeoutMs)
			.connectionTimeoutMs(connectionTimeoutMs)
			.retryPolicy(new ExponentialBackoffRetry(millis(zookeeper.getBaseSleep(), "base-sleep"),
					zookeeper.getMaxRetries()));
		String digest = zookeeper.getDigest();
		if (StringUtils.hasText(digest)) {
			int colon = digest.indexOf(':');
			// Neither part is shown: the password is a credential.
			if (colon < 1 || colon == digest.length() - 1) {
				throw new DistributeLockConfigurationException(
						"distributelock.zookeeper.digest must be of the form user:password, with neither part empty.",
						"Set distributelock.zookeeper.digest to user:password, or remove it.");
			}
			builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8))
				.aclProvider(new CreatorOnlyAclProvider());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return checkedCustomizations(builder, connectString, sessionTimeoutMs, connectionTimeoutMs).build();
	}

	/**
	 * Checks the connect string and the timeouts after the customizers as the properties
	 * were checked before them: one a customizer set reached the client unchecked, and
	 * the application started to fail every lock call (with a bare {@code SystemError}
	 * for a connect string the client cannot use).
	 */
	private static CuratorFrameworkFactory.Builder checkedCustomizations(CuratorFrameworkFactory.Builder builder,
			String connectString, int sessionTimeoutMs, int connectionTimeoutMs) {
		// Another ensemble provider, such as one that discovers the servers, is the
		// customizer's to check.
		String customizedConnectString = (builder.getEnsembleProvider() instanceof FixedEnsembleProvider fixed)
				? fixed.getConnectionString() : connectString;
		List<String> changes = new ArrayList<>();
		CustomizedSettings.addIfChanged(changes, "connectString", connectString, customizedConnectString);
		CustomizedSettings.addIfChanged(changes, "sessionTimeoutMs", sessionTimeoutMs, builder.getSessionTimeoutMs());
		CustomizedSettings.addIfChanged(changes, "connectionTimeoutMs", connectionTimeoutMs,
				builder.getConnectionTimeoutMs());
		return CustomizedSettings.explainingChanges(CuratorFrameworkBuilderCustomizer.class.getSimpleName(), changes,
				() -> {
					checkConnectString(customizedConnectString);
					sessionTimeoutMillis(Duration.ofMillis(builder.getSessionTimeoutMs()));
					millis(Duration.ofMillis(builder.getConnectionTimeoutMs()), "connection-timeout");
					return builder;
				});
	}

	@Bean
	@ConditionalOnMissingBean(LockBackend.class)
	ZooKeeperLockBackend zooKeeperLockBackend(CuratorFramework client, DistributeLockProperties properties,
			ListableBeanFactory beanFactory) {
		if (StringUtils.hasText(properties.getZookeeper().getDigest()) && !beanFactory.containsBean(BUILT_CLIENT)) {
			// Ignored as Boot ignores a client's properties beside the application's own
			// client, it would leave the lock's nodes open to every client of the
			// ensemble
			// where the reader of the property expects them kept to one user.
			throw new DistributeLockConfigurationException("distributelock.zookeeper.digest is set, but the "
					+ "application defines its own CuratorFramework bean, which the lock uses as it is: the digest "
					+ "is not applied, and the lock's nodes get that client's ACLs.",
					"Give your CuratorFramework the authentication and ACLs it needs "
							+ "(CuratorFrameworkFactory.builder().authorization(\"digest\", ...).aclProvider(...)) and "
							+ "remove distributelock.zookeeper.digest, or remove your CuratorFramework bean so that "
							+ "the lock builds its client from distributelock.zookeeper.*.");
		}
		String root = properties.getZookeeper().getRoot();
		if (root != null && (root.equals(RESERVED_ROOT) || root.startsWith(RESERVED_ROOT + "/"))
				&& atTheTopOfTheTree(client)) {
			throw new DistributeLockConfigurationException("distributelock.zookeeper.root is '" + root + "', inside "
					+ RESERVED_ROOT + ", which ZooKeeper reserves for itself: its own nodes there "
					+ "(config, quota) would read as locks held for ever, and it refuses to let clients write under "
					+ "some of them.",
					"Set distributelock.zookeeper.root to a path outside " + RESERVED_ROOT
							+ ", such as /locks (the default), or remove it.");
		}
		try {
			return new ZooKeeperLockBackend(client, root);
		}
		catch (IllegalArgumentException ex) {
			throw new DistributeLockConfigurationException(
					"distributelock.zookeeper.root is invalid. " + ex.getMessage() + ".",
					"Set distributelock.zookeeper.root to an absolute path without a trailing slash, such as /locks.");
		}
	}

	/**
	 * Whether the client's paths start at the top of ZooKeeper's tree, where
	 * {@value #RESERVED_ROOT} is ZooKeeper's own: with a namespace or a chroot they start
	 * below it, and a root named so is an ordinary node. A connect string that cannot be
	 * read, which the start reports elsewhere, counts as no chroot.
	 */
	private static boolean atTheTopOfTheTree(CuratorFramework client) {
		if (StringUtils.hasLength(client.getNamespace())) {
			return false;
		}
		try {
			String connectString = client.getZookeeperClient().getCurrentConnectionString();
			return connectString == null || new ConnectStringParser(connectString).getChrootPath() == null;
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	/**
	 * Refuses a connect string that the ZooKeeper client cannot be created from: Curator
	 * only logs that failure when it starts, and every lock call then fails with a bare
	 * {@code SystemError}.
	 */
	private static void checkConnectString(String connectString) {
		String problem;
		try {
			problem = new ConnectStringParser(connectString).getServerAddresses().isEmpty() ? "it names no server"
					: null;
		}
		catch (IllegalArgumentException ex) {
			problem = ex.toString();
		}
		if (problem != null) {
			throw new DistributeLockConfigurationException(
					"distributelock.zookeeper.connect-string is '" + connectString + "', which ZooKeeper cannot use: "
							+ problem + ".",
					"Set distributelock.zookeeper.connect-string to comma-separated host:port pairs, optionally "
							+ "followed by a chroot path without a trailing slash, such as zk1:2181,zk2:2181,zk3:2181 "
							+ "or zk1:2181,zk2:2181/app.");
		}
	}

	/**
	 * Refuses a session timeout below {@link #SHORTEST_SESSION_TIMEOUT}: the ZooKeeper
	 * client times its connection attempts and its reads by the timeout it asks for, so
	 * with a few milliseconds every call failed with {@code ConnectionLoss}, or the
	 * session, and the locks with it, ended as soon as they were taken.
	 */
	private static int sessionTimeoutMillis(Duration sessionTimeout) {
		int millis = millis(sessionTimeout, "session-timeout");
		if (millis < SHORTEST_SESSION_TIMEOUT.toMillis()) {
			throw new DistributeLockConfigurationException("distributelock.zookeeper.session-timeout is "
					+ sessionTimeout + ", below " + SHORTEST_SESSION_TIMEOUT.toSeconds()
					+ "s: the ZooKeeper client times its "
					+ "connection and its reads by it, so lock calls would fail with ConnectionLoss or lose their "
					+ "locks at once.",
					"Set distributelock.zookeeper.session-timeout to " + SHORTEST_SESSION_TIMEOUT.toSeconds()
							+ "s or more (60s by default); ZooKeeper servers raise a timeout below two ticks (4s "
							+ "with the default tickTime of 2s) to that anyway.");
		}
		return millis;
	}

	private static int millis(Duration duration, String property) {
		long millis = duration.toMillis();
		if (millis <= 0 || millis > Integer.MAX_VALUE) {
			throw new DistributeLockConfigurationException(
					"distributelock.zookeeper." + property + " is " + duration + ", which ZooKeeper cannot use.",
					"Set distributelock.zookeeper." + property + " to a positive duration below 24 days.");
		}
		return (int) millis;
	}

	/**
	 * Creates nodes that only the authenticated digest user can read, change or delete.
	 */
	static final class CreatorOnlyAclProvider implements ACLProvider {

		@Override
		public List<ACL> getDefaultAcl() {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

		@Override
		public List<ACL> getAclForPath(String path) {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

	}

}
