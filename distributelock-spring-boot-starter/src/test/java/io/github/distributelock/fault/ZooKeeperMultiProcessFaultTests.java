package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The multi-process faults on a real ZooKeeper server: the lease is the session timeout
 * of the worker's client, after which the server removes its ephemeral lock node.
 */
class ZooKeeperMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long SESSION_TIMEOUT_MILLIS = 4000;

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=zookeeper", "zkConnect=" + zooKeeper.connectString(),
				"sessionTimeoutMs=" + SESSION_TIMEOUT_MILLIS);
	}

	@Override
	protected LockBackend newBackend() throws Exception {
		return new ZooKeeperLockBackend(closeAfter(zooKeeper.newClient(Duration.ofMillis(SESSION_TIMEOUT_MILLIS))));
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return zooKeeper.store().checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	@Override
	protected long leaseMillis() {
		return SESSION_TIMEOUT_MILLIS;
	}

	@Override
	protected boolean renewsLeases() {
		return false;
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
