package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * One redis-server process of an {@link EmbeddedRedisCluster}, in cluster mode on a free
 * loopback port, with its cluster state ({@code nodes.conf}) in a directory of its own so
 * that it keeps its identity when started again.
 */
public final class EmbeddedRedisClusterNode implements AutoCloseable {

	private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(2);

	private final int port;

	private final Path directory;

	private final RedisServer server;

	private final RedisClient adminClient;

	private volatile @Nullable String id;

	private volatile long pid;

	private volatile boolean running;

	private volatile boolean paused;

	private EmbeddedRedisClusterNode(int port, Path directory, RedisServer server, RedisClient adminClient) {
		this.port = port;
		this.directory = directory;
		this.server = server;
		this.adminClient = adminClient;
	}

	/**
	 * Starts a node that belongs to no cluster yet.
	 * @param nodeTimeout its {@code cluster-node-timeout}
	 * @param adminClient the client of {@link #admin} commands
	 * @return the running node
	 */
	static EmbeddedRedisClusterNode start(Duration nodeTimeout, RedisClient adminClient) {
		int port = freeClusterPort();
		try {
			Path directory = Files.createTempDirectory("distributelock-redis-cluster-" + port + "-");
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.setting("bind 127.0.0.1")
				.setting("dir " + directory)
				.setting("cluster-enabled yes")
				.setting("cluster-config-file nodes.conf")
				.setting("cluster-node-timeout " + nodeTimeout.toMillis())
				// A replica that was paused may still be promoted: the window tests
				// pause one on purpose.
				.setting("cluster-replica-validity-factor 0")
				.setting("cluster-allow-replica-migration no")
				.setting("save \"\"")
				.setting("appendonly no")
				// Streams the first sync without a file or the default 5 s delay.
				.setting("repl-diskless-sync yes")
				.setting("repl-diskless-sync-delay 0")
				// Killed with SIGKILL at stop, as a crash would.
				.onShutdownForceStop(true)
				.build();
			EmbeddedRedisClusterNode node = new EmbeddedRedisClusterNode(port, directory, server, adminClient);
			try {
				node.start();
			}
			catch (IOException | RuntimeException ex) {
				node.close();
				throw ex;
			}
			return node;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A free port whose cluster bus port (10000 above) is free too: Redis 6.2 cannot
	 * choose the bus port.
	 */
	private static int freeClusterPort() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = EmbeddedRedis.freePort();
			if (port + 10000 <= 65535 && isFree(port + 10000)) {
				return port;
			}
		}
		throw new IllegalStateException("Found no free port with a free cluster bus port in 100 attempts");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	public int port() {
		return this.port;
	}

	String id() {
		return this.id;
	}

	boolean isRunning() {
		return this.running;
	}

	boolean isPaused() {
		return this.paused;
	}

	/** Starts the process, again after {@link #kill()}: empty, with its identity. */
	void start() throws IOException {
		this.server.start();
		this.running = true;
		this.pid = Long.parseLong(infoField(admin((commands) -> commands.info("server")), "process_id"));
		String myId = admin(RedisCommands::clusterMyId);
		if (this.id != null && !this.id.equals(myId)) {
			throw new IllegalStateException(this + " came back as node " + myId + ", not " + this.id);
		}
		this.id = myId;
	}

	/** Kills the process with SIGKILL and returns once its port refuses connections. */
	void kill() throws IOException {
		if (this.paused) {
			signal("CONT");
		}
		this.running = false;
		this.server.stop();
		await("node " + this + " gone").atMost(Duration.ofSeconds(10)).until(() -> !EmbeddedRedis.accepts(this.port));
	}

	/** Stops the process with SIGSTOP, or continues it with SIGCONT. */
	void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.pid)).inheritIO().start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.pid + " failed");
			}
			this.paused = "STOP".equals(signal);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Runs commands on a connection of their own to this node. */
	<T> T admin(Function<RedisCommands<String, String>, T> call) {
		RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(this.port).withTimeout(ADMIN_TIMEOUT).build();
		try (StatefulRedisConnection<String, String> connection = this.adminClient.connect(uri)) {
			return call.apply(connection.sync());
		}
	}

	/** The cluster as this node sees it ({@code CLUSTER NODES}). */
	Partitions view() {
		String nodes = admin(RedisCommands::clusterNodes);
		return ClusterPartitionParser.parse(nodes);
	}

	/** This node as it sees itself. */
	RedisClusterNode self() {
		return view().getPartitionByNodeId(this.id);
	}

	String clusterInfo() {
		return admin(RedisCommands::clusterInfo);
	}

	String replicationInfo() {
		return admin((commands) -> commands.info("replication"));
	}

	/**
	 * The cluster as this node sees it, as masters with their slot count and replicas, or
	 * {@code null} if it is not whole: a node suspected of failure or not connected, a
	 * master without exactly one replica.
	 */
	@Nullable String describeCluster() {
		Partitions view = view();
		List<String> masters = new ArrayList<>();
		for (RedisClusterNode node : view) {
			if (node.is(RedisClusterNode.NodeFlag.FAIL) || node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)
					|| node.is(RedisClusterNode.NodeFlag.HANDSHAKE) || node.is(RedisClusterNode.NodeFlag.NOADDR)
					|| !node.isConnected()) {
				return null;
			}
			if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
				List<String> replicas = view.getPartitions()
					.stream()
					.filter((other) -> node.getNodeId().equals(other.getSlaveOf()))
					.map(RedisClusterNode::getNodeId)
					.toList();
				if (replicas.size() != 1) {
					return null;
				}
				masters.add(node.getNodeId() + node.getSlots().size() + replicas);
			}
		}
		masters.sort(Comparator.naturalOrder());
		return masters.toString();
	}

	/**
	 * Whether this node has {@code key}, read on the node itself (a replica, or a master
	 * importing the key's slot, too).
	 * @param key a Redis key
	 * @return whether it has the key
	 */
	public boolean hasKey(String key) {
		return admin((commands) -> {
			commands.readOnly();
			// Lets the next command into a slot the node is importing.
			commands.asking();
			try {
				return commands.exists(key) == 1;
			}
			catch (RedisCommandExecutionException ex) {
				// A node sends a client elsewhere for a key it does not have.
				if (ex.getMessage().startsWith("ASK ") || ex.getMessage().startsWith("MOVED ")) {
					return false;
				}
				throw ex;
			}
		});
	}

	/**
	 * How many clients of this node subscribe to {@code channel}.
	 * @param channel a pub/sub channel
	 * @return the number of subscribers on this node
	 */
	public long subscribers(String channel) {
		return admin((commands) -> commands.pubsubNumsub(channel).getOrDefault(channel, 0L));
	}

	private static String infoField(String info, String field) {
		return info.lines()
			.filter((line) -> line.startsWith(field + ":"))
			.map((line) -> line.substring(field.length() + 1).trim())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No " + field + " in INFO"));
	}

	/** Kills the process (continued first if paused) and deletes its directory. */
	@Override
	public void close() throws IOException {
		try {
			if (this.paused) {
				signal("CONT");
			}
			this.running = false;
			this.server.stop();
		}
		finally {
			try (Stream<Path> files = Files.walk(this.directory)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
		}
	}

	@Override
	public String toString() {
		return "127.0.0.1:" + this.port;
	}

}
