package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.Set;

import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.extension.RegisterExtension;

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

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected String backendName() {
		return "zookeeper";
	}

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=zookeeper",
					"distributelock.zookeeper.connect-string=" + zooKeeper.connectString());
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
		CuratorFramework client = closeAfterTest(zooKeeper.newClient(SESSION_TIMEOUT));
		ZooKeeperLockBackend backend = closeAfterTest(new ZooKeeperLockBackend(client));
		return closeAfterTest(new DefaultDistributeLock(backend));
	}

	/** The lock nodes under the root; the keys here need no escaping. */
	@Override
	protected Set<String> heldKeysInStore() throws Exception {
		try {
			return Set.copyOf(zooKeeper.store().getChildren().forPath(ZooKeeperLockBackend.DEFAULT_ROOT));
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
