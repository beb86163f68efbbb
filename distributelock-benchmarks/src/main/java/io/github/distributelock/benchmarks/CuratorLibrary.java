package io.github.distributelock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jspecify.annotations.Nullable;

/**
 * Curator's {@link InterProcessMutex}: a sequential ephemeral node under the lock's path,
 * waiting on a watch of the node before it.
 */
final class CuratorLibrary implements LockLibrary {

	private final CuratorFramework client;

	CuratorLibrary(Endpoints endpoints) throws InterruptedException {
		this.client = connect(endpoints);
	}

	/** A started Curator client with Curator's usual retry policy, as ours gets too. */
	static CuratorFramework connect(Endpoints endpoints) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.newClient(endpoints.zooKeeperConnect(),
				new ExponentialBackoffRetry(100, 3));
		client.start();
		if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("ZooKeeper did not connect");
		}
		return client;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		InterProcessMutex mutex = new InterProcessMutex(this.client, "/curator-locks/" + key);
		if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return mutex::release;
	}

	@Override
	public void close() {
		this.client.close();
	}

}
