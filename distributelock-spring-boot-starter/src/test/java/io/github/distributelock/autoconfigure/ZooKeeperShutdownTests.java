package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.Set;

import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A clean shutdown on a real ZooKeeper server: no lock node of the instance is left under
 * the root, and the locks are released before the Curator client the auto-configuration
 * built is closed.
 */
class ZooKeeperShutdownTests extends AbstractShutdownTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static TestingServer server;

	private static CuratorFramework store;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = EmbeddedZooKeeper.startServer();
		store = EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT);
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		try {
			if (store != null) {
				store.close();
			}
		}
		finally {
			server.close();
		}
	}

	@Override
	protected String backendName() {
		return "zookeeper";
	}

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=zookeeper",
					"distributelock.zookeeper.connect-string=" + server.getConnectString());
	}

	@Override
	protected Class<?> countingBackendConfiguration() {
		return CountingBackendConfiguration.class;
	}

	@Override
	protected Class<?> storeClientType() {
		return CuratorFramework.class;
	}

	@Override
	protected DefaultDistributeLock otherInstance() throws Exception {
		CuratorFramework client = closeAfterTest(
				EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperLockBackend backend = closeAfterTest(new ZooKeeperLockBackend(client));
		return closeAfterTest(new DefaultDistributeLock(backend));
	}

	/** The lock nodes under the root; the keys here need no escaping. */
	@Override
	protected Set<String> heldKeysInStore() throws Exception {
		try {
			return Set.copyOf(store.getChildren().forPath(ZooKeeperLockBackend.DEFAULT_ROOT));
		}
		catch (KeeperException.NoNodeException ex) {
			// The root is a container: the server removes it once it is empty.
			return Set.of();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingBackendConfiguration {

		@Bean
		CountingLockBackend countingLockBackend(CuratorFramework client) {
			return CountingLockBackend.of(new ZooKeeperLockBackend(client));
		}

	}

}
