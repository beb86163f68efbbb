package io.github.distributelock.benchmarks.floor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
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

	/**
	 * The floor of two keys: both nodes created in one transaction and deleted in one, as
	 * our multi-key lock does, for the lock kinds' rows.
	 */
	public static final LibraryConfiguration TWO_KEYS = new LibraryConfiguration("ZooKeeper", CONFIGURATION.client(),
			CONFIGURATION.settings(),
			"`multi(create(a, EPHEMERAL), create(b, EPHEMERAL))`; unlock `multi(delete(a, -1), delete(b, -1))`");

	private final ZooKeeper zooKeeper;

	private final boolean twoKeys;

	public ZooKeeperFloor(Endpoints endpoints) throws Exception {
		this(endpoints, false);
	}

	public ZooKeeperFloor(Endpoints endpoints, boolean twoKeys) throws Exception {
		this.twoKeys = twoKeys;
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
		if (this.twoKeys) {
			List<Op> creates = List.of(create(ROOT + "/" + key + ".a"), create(ROOT + "/" + key + ".b"));
			List<Op> deletes = List.of(Op.delete(ROOT + "/" + key + ".a", -1), Op.delete(ROOT + "/" + key + ".b", -1));
			return retried(wait, () -> this.zooKeeper.multi(creates), () -> this.zooKeeper.multi(deletes));
		}
		String path = ROOT + "/" + key;
		return retried(wait, () -> this.zooKeeper.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL),
				() -> this.zooKeeper.delete(path, -1));
	}

	private static @Nullable Release retried(Duration wait, Callable<?> create, Release delete) throws Exception {
		long deadline = System.nanoTime() + wait.toNanos();
		while (true) {
			try {
				create.call();
				return delete;
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

	private static Op create(String path) {
		return Op.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
	}

	@Override
	public void close() throws InterruptedException {
		this.zooKeeper.close();
	}

}
