package io.github.distributelock.zookeeper;

import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * What the tests read of a server's tree and log, beside the lock's own API.
 */
final class ZooKeeperTree {

	private ZooKeeperTree() {
	}

	/**
	 * The zxid of the server's last transaction, from its {@code srvr} report: every
	 * write, failed writes and session changes included, moves it by one.
	 */
	static long lastZxid(EmbeddedZooKeeperExtension zooKeeper) throws Exception {
		return Long.decode(srvr(zooKeeper, "Zxid:"));
	}

	/**
	 * How many requests the server has received, from its {@code srvr} report: pings of
	 * idle sessions included, and every report but this one (each counts itself after it
	 * answers).
	 */
	static long requestsReceived(EmbeddedZooKeeperExtension zooKeeper) throws Exception {
		return Long.parseLong(srvr(zooKeeper, "Received:"));
	}

	private static String srvr(EmbeddedZooKeeperExtension zooKeeper, String field) throws Exception {
		String report = FourLetterWordMain.send4LetterWord("127.0.0.1", zooKeeper.port(), "srvr");
		String line = report.lines().filter((each) -> each.startsWith(field)).findFirst().orElseThrow();
		return line.substring(field.length()).trim();
	}

	/** The children of {@code path}, none if it does not exist. */
	static List<String> children(CuratorFramework client, String path) throws Exception {
		try {
			return client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
	}

	/** How many nodes are below {@code path}, at any depth. */
	static int nodesBelow(CuratorFramework client, String path) throws Exception {
		int count = 0;
		for (String child : children(client, path)) {
			count += 1 + nodesBelow(client, path + "/" + child);
		}
		return count;
	}

}
