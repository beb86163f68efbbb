package io.github.distributelock.aop;

import java.time.Duration;
import java.util.function.Predicate;

import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import io.github.distributelock.reactive.BlockHoundExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Reactive and asynchronous {@code @Lockable} methods on ZooKeeper.
 * <p>
 * Runs with BlockHound installed ({@link BlockHoundExtension}), which also counts
 * ZooKeeper's EventThread as non-blocking: a blocking call in a watch or a background
 * callback of the starter fails the test.
 */
@Tag("blockhound")
@ExtendWith(BlockHoundExtension.class)
class ZooKeeperReactiveLockableTests extends AbstractReactiveLockableTests {

	private static TestingServer server;

	private static CuratorFramework store;

	@BeforeAll
	static void startServer() throws Exception {
		server = EmbeddedZooKeeper.startServer();
		store = EmbeddedZooKeeper.newClient(server.getConnectString(), Duration.ofSeconds(10));
	}

	@AfterAll
	static void stopServer() throws Exception {
		try {
			if (store != null) {
				store.close();
			}
		}
		finally {
			if (server != null) {
				server.close();
			}
		}
	}

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withPropertyValues("distributelock.type=zookeeper",
				"distributelock.zookeeper.connect-string=" + server.getConnectString());
	}

	@Override
	protected Predicate<String> lockedInStore(AssertableApplicationContext context) {
		return (key) -> {
			try {
				return store.checkExists().forPath("/locks/" + key) != null;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		};
	}

}
