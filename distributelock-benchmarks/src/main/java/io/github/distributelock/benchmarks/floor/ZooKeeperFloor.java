package io.github.distributelock.benchmarks.floor;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * The physical floor of a ZooKeeper lock: the raw client creates an ephemeral node and
 * deletes it, two requests. Waiting, for the contended runs only, is a 1 ms retry loop.
 */
public final class ZooKeeperFloor implements LockLibrary {

	/** What this floor runs. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("ZooKeeper",
			"`new ZooKeeper(connect, 30_000, watcher)`, one session shared by the JVM's threads",
			"waiting retries every 1 ms", "`create(\"/floor/\" + key, EPHEMERAL)`; unlock `delete(path, -1)`");

	private static final String ROOT = "/floor";

	private final ZooKeeper zooKeeper;

	public ZooKeeperFloor(Endpoints endpoints) throws Exception {
		CountDownLatch connected = new CountDownLatch(1);
		this.zooKeeper = new ZooKeeper(endpoints.zooKeeperConnect(), 30_000, (event) -> {
			if (event.getState() == KeeperState.SyncConnected) {
				connected.countDown();
			}
		});
		if (!connected.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("ZooKeeper did not connect");
		}
		try {
			this.zooKeeper.create(ROOT, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
		}
		catch (KeeperException.NodeExistsException ex) {
			// Another JVM of this run made it.
		}
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		String path = ROOT + "/" + key;
		long deadline = System.nanoTime() + wait.toNanos();
		while (true) {
			try {
				this.zooKeeper.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
				return () -> this.zooKeeper.delete(path, -1);
			}
			catch (KeeperException.NodeExistsException ex) {
				if (System.nanoTime() - deadline >= 0) {
					return null;
				}
				// The floor measures the raw client's two requests, not a recipe: a watch
				// is what the lock libraries add, so it retries every millisecond
				// (bounded by the wait), the tightest loop a user would write, as the
				// other floors.
				Thread.sleep(1);
			}
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.zooKeeper.close();
	}

}
