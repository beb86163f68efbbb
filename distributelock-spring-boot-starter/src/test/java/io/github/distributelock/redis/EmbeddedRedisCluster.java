package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.github.distributelock.Closeables;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * A real Redis Cluster of three masters with one replica each, six redis-server processes
 * from the embedded-redis jar on free loopback ports, with the faults a failover test
 * needs: kill a master, pause a replica, promote a replica, and wait until the cluster is
 * whole again. {@link #close()} stops every process and client it started, also after a
 * failed test.
 * <p>
 * Nodes keep their cluster state ({@code nodes.conf}) in a directory of their own, so a
 * killed node started again rejoins with its identity and, its slots having moved on,
 * becomes a replica of the node that took them over.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {

	/** How long a node must be unreachable before the others hold it down. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(EmbeddedRedisCluster.class);

	private static final int MASTERS = 3;

	private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(2);

	/** Bound on forming the cluster and on healing it after a fault. */
	private static final Duration HEALING = Duration.ofSeconds(30);

	private final Closeables closeables = new Closeables();

	private final Duration nodeTimeout;

	private final ClientResources clientResources;

	private final RedisClient adminClient;

	private final List<Node> nodes = new ArrayList<>();

	private StringRedisTemplate store;

	private EmbeddedRedisCluster(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
		// Reconnect every 100 ms instead of Lettuce's exponential back-off, so that the
		// time a client takes to find a promoted master reflects the failover.
		this.clientResources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
		this.closeables.add(() -> this.clientResources.shutdown().get());
		this.adminClient = RedisClient.create(this.clientResources);
		// A command to a stopped or killed node fails at once instead of waiting for the
		// node in a reconnecting connection's queue.
		this.adminClient.setOptions(ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.autoReconnect(false)
			.build());
		this.closeables.add(() -> this.adminClient.shutdown(Duration.ZERO, ADMIN_TIMEOUT));
	}

	/**
	 * Starts six nodes, gives each of three a third of the slots and the other three one
	 * master each to replicate, and returns once every node sees the same healthy
	 * cluster.
	 * @param nodeTimeout the nodes' {@code cluster-node-timeout}
	 * @return the running cluster
	 */
	public static EmbeddedRedisCluster start(Duration nodeTimeout) {
		EmbeddedRedisCluster cluster = new EmbeddedRedisCluster(nodeTimeout);
		long start = System.nanoTime();
		try {
			cluster.form();
			logger.info("Redis Cluster of " + cluster.nodes.size() + " nodes formed in "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
			return cluster;
		}
		catch (RuntimeException | Error ex) {
			try {
				cluster.close();
			}
			catch (Exception closeFailure) {
				ex.addSuppressed(closeFailure);
			}
			throw ex;
		}
	}

	private void form() {
		for (int i = 0; i < 2 * MASTERS; i++) {
			this.nodes.add(startNode());
		}
		for (int i = 0; i < MASTERS; i++) {
			int[] slots = IntStream.range(SlotHash.SLOT_COUNT * i / MASTERS, SlotHash.SLOT_COUNT * (i + 1) / MASTERS)
				.toArray();
			admin(this.nodes.get(i), (commands) -> commands.clusterAddSlots(slots));
		}
		Node first = this.nodes.get(0);
		for (Node node : this.nodes.subList(1, this.nodes.size())) {
			admin(first, (commands) -> commands.clusterMeet("127.0.0.1", node.port));
		}
		for (Node node : this.nodes) {
			await("node " + node + " knows every node").atMost(HEALING)
				.until(() -> clusterInfo(node).contains("cluster_known_nodes:" + this.nodes.size()));
		}
		for (int i = 0; i < MASTERS; i++) {
			String masterId = this.nodes.get(i).id;
			admin(this.nodes.get(MASTERS + i), (commands) -> commands.clusterReplicate(masterId));
		}
		awaitHealthy();
	}

	private Node startNode() {
		int port = freeClusterPort();
		try {
			Path directory = Files.createTempDirectory("distributelock-redis-cluster-" + port + "-");
			this.closeables.add(() -> delete(directory));
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.setting("bind 127.0.0.1")
				.setting("dir " + directory)
				.setting("cluster-enabled yes")
				.setting("cluster-config-file nodes.conf")
				.setting("cluster-node-timeout " + this.nodeTimeout.toMillis())
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
			Node node = new Node(port, server);
			this.closeables.add(node::stop);
			node.start();
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

	/** Every node, killed or not, in the order they were started. */
	public List<Node> nodes() {
		return List.copyOf(this.nodes);
	}

	/** The seed addresses of a client, {@code 127.0.0.1:port} of every node. */
	public List<String> seedNodes() {
		return this.nodes.stream().map((node) -> "127.0.0.1:" + node.port).toList();
	}

	/**
	 * The node that serves {@code key} as it sees itself: a master that owns the key's
	 * slot in its own view of the cluster.
	 * @param key a Redis key
	 * @return that master
	 */
	public Node masterOf(String key) {
		return masterOfSlot(SlotHash.getSlot(key));
	}

	private Node masterOfSlot(int slot) {
		for (Node node : this.nodes) {
			if (node.isRunning() && !node.paused) {
				RedisClusterNode self = self(node);
				if (self.is(RedisClusterNode.NodeFlag.UPSTREAM) && self.hasSlot(slot)) {
					return node;
				}
			}
		}
		throw new IllegalStateException("No running master claims slot " + slot);
	}

	/**
	 * The replica of {@code master}, as the master sees it.
	 * @param master a running master
	 * @return its replica
	 */
	public Node replicaOf(Node master) {
		Partitions view = view(master);
		for (Node node : this.nodes) {
			RedisClusterNode described = view.getPartitionByNodeId(node.id);
			if (described != null && master.id.equals(described.getSlaveOf())) {
				return node;
			}
		}
		throw new IllegalStateException(master + " has no replica");
	}

	/**
	 * Kills the node with SIGKILL, as a crash would, and returns once its port refuses
	 * connections.
	 * @param node a running node
	 */
	public void kill(Node node) throws IOException {
		node.stop();
		await("node " + node + " gone").atMost(Duration.ofSeconds(10)).until(() -> !accepts(node.port));
	}

	/**
	 * Starts a killed node again, empty, with its cluster identity.
	 * @param node a killed node
	 */
	public void restart(Node node) throws IOException {
		node.start();
	}

	/**
	 * Stops a replica (SIGSTOP) and cuts its replication link at its master, so that
	 * nothing the master writes from now on reaches it. Stopping the process alone is not
	 * enough: its socket's kernel buffer still receives the replication stream and hands
	 * it over at {@link #resume(Node) SIGCONT}; and {@code CLIENT PAUSE} on the replica
	 * holds the stream back but still acknowledges it, which would make {@code WAIT}
	 * count a write the replica never applied.
	 * @param replica a running replica
	 */
	public void pause(Node replica) {
		Node master = masterOfReplica(replica);
		replica.signal("STOP");
		admin(master, (commands) -> commands.clientKill(KillArgs.Builder.typeSlave()));
		await("replication link of " + replica + " cut at " + master).atMost(Duration.ofSeconds(10))
			.until(() -> replicationInfo(master).contains("connected_slaves:0"));
	}

	/**
	 * Continues a paused node (SIGCONT).
	 * @param node a paused node
	 */
	public void resume(Node node) {
		node.signal("CONT");
	}

	/**
	 * Promotes a replica at once with {@code CLUSTER FAILOVER TAKEOVER}, without its
	 * master's consent nor the other masters' votes, and returns once it serves its
	 * master's slots.
	 * @param replica a running replica
	 */
	public void promote(Node replica) {
		admin(replica, (commands) -> commands.clusterFailover(false, true));
		awaitMaster(replica);
	}

	/**
	 * Hands a master's slots to its replica with a coordinated {@code CLUSTER FAILOVER}:
	 * the master stops writes until the replica has caught up, so nothing is lost, and
	 * becomes the replica's replica.
	 * @param replica a running replica whose master runs too
	 */
	public void failover(Node replica) {
		admin(replica, (commands) -> commands.clusterFailover(false));
		awaitMaster(replica);
	}

	/**
	 * Begins to move a slot to another master, as {@code redis-cli --cluster reshard}
	 * does: the source answers {@code ASK} for the slot's keys it does not have, the
	 * target serves them after {@code ASKING}.
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void beginMigration(int slot, Node target) {
		Node source = masterOfSlot(slot);
		admin(target, (commands) -> commands.clusterSetSlotImporting(slot, source.id));
		admin(source, (commands) -> commands.clusterSetSlotMigrating(slot, target.id));
	}

	/**
	 * Moves every key of a slot under migration to its target ({@code MIGRATE}).
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void migrateKeys(int slot, Node target) {
		Node source = masterOfSlot(slot);
		List<String> keys = admin(source, (commands) -> commands.clusterGetKeysInSlot(slot, 1000));
		if (!keys.isEmpty()) {
			admin(source, (commands) -> commands.migrate("127.0.0.1", target.port, 0, ADMIN_TIMEOUT.toMillis(),
					MigrateArgs.Builder.keys(keys)));
		}
	}

	/**
	 * Ends a migration begun with {@link #beginMigration}, once the source has no key of
	 * the slot left, and returns once every node sees the target serve it.
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void endMigration(int slot, Node target) {
		Node source = masterOfSlot(slot);
		admin(target, (commands) -> commands.clusterSetSlotNode(slot, target.id));
		admin(source, (commands) -> commands.clusterSetSlotNode(slot, target.id));
		awaitHealthy();
		await("slot " + slot + " on " + target).atMost(HEALING).until(() -> masterOfSlot(slot) == target);
	}

	/**
	 * Waits until {@code node} sees itself as a master that owns slots.
	 * @param node a running node
	 */
	public void awaitMaster(Node node) {
		await(node + " serves slots as a master").atMost(HEALING).ignoreExceptions().until(() -> {
			RedisClusterNode self = self(node);
			return self.is(RedisClusterNode.NodeFlag.UPSTREAM) && !self.hasNoSlots();
		});
	}

	/**
	 * Undoes the faults: continues every paused node, starts every killed node again, and
	 * waits until the cluster is healthy.
	 */
	public void restore() throws IOException {
		for (Node node : this.nodes) {
			if (node.paused) {
				resume(node);
			}
		}
		for (Node node : this.nodes) {
			if (!node.isRunning()) {
				restart(node);
			}
		}
		awaitHealthy();
	}

	/**
	 * Waits until every node runs and sees the same cluster: every slot served, every
	 * master with one replica in sync, no node suspected of failure.
	 */
	public void awaitHealthy() {
		await("a healthy cluster").atMost(HEALING).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
			String topology = null;
			for (Node node : this.nodes) {
				String info = clusterInfo(node);
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")
						|| !info.contains("cluster_known_nodes:" + this.nodes.size())) {
					return false;
				}
				String seen = describe(view(node));
				if (seen == null || (topology != null && !topology.equals(seen))) {
					return false;
				}
				topology = seen;
				String replication = replicationInfo(node);
				if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
					return false;
				}
			}
			return true;
		});
	}

	/**
	 * A view of the cluster as masters with their slots and replicas, or {@code null} if
	 * it is not whole: a node suspected of failure or not connected, a master without
	 * exactly one replica.
	 */
	private static String describe(Partitions view) {
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
	 * Whether {@code node} has {@code key}, read on the node itself (a replica, or a
	 * master importing the key's slot, too).
	 * @param node a running node
	 * @param key a Redis key
	 * @return whether it has the key
	 */
	public boolean hasKey(Node node, String key) {
		return admin(node, (commands) -> {
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
	 * A connection factory to the cluster, as an application with
	 * {@code spring.data.redis.cluster.nodes} has, with a 2 s command timeout; the caller
	 * destroys it.
	 * @return a started factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(seedNodes()),
				LettuceClientConfiguration.builder()
					.clientResources(this.clientResources)
					.commandTimeout(Duration.ofSeconds(2))
					.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A template on a cluster connection of its own, to read the store directly; it
	 * follows failovers.
	 * @return the template
	 */
	public synchronized StringRedisTemplate store() {
		if (this.store == null) {
			LettuceConnectionFactory factory = newConnectionFactory();
			this.closeables.add(factory::destroy);
			this.store = new StringRedisTemplate(factory);
		}
		return this.store;
	}

	private Node masterOfReplica(Node replica) {
		String masterId = self(replica).getSlaveOf();
		return this.nodes.stream()
			.filter((node) -> node.id.equals(masterId))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(replica + " replicates no known master"));
	}

	private RedisClusterNode self(Node node) {
		return view(node).getPartitionByNodeId(node.id);
	}

	private Partitions view(Node node) {
		String nodes = admin(node, RedisCommands::clusterNodes);
		return ClusterPartitionParser.parse(nodes);
	}

	private String clusterInfo(Node node) {
		return admin(node, RedisCommands::clusterInfo);
	}

	private String replicationInfo(Node node) {
		return admin(node, (commands) -> commands.info("replication"));
	}

	/** Runs commands on a connection of their own to one node. */
	private <T> T admin(Node node, Function<RedisCommands<String, String>, T> call) {
		RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(node.port).withTimeout(ADMIN_TIMEOUT).build();
		try (StatefulRedisConnection<String, String> connection = this.adminClient.connect(uri)) {
			return call.apply(connection.sync());
		}
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void delete(Path directory) throws IOException {
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
	}

	/**
	 * Kills every node (continuing paused ones first), closes the clients and deletes the
	 * nodes' directories.
	 */
	@Override
	public void close() throws Exception {
		this.closeables.close();
	}

	/** One redis-server process of the cluster. */
	public final class Node {

		private final int port;

		private final RedisServer server;

		private volatile String id;

		private volatile long pid;

		private volatile boolean running;

		private volatile boolean paused;

		private Node(int port, RedisServer server) {
			this.port = port;
			this.server = server;
		}

		public int port() {
			return this.port;
		}

		boolean isRunning() {
			return this.running;
		}

		boolean isPaused() {
			return this.paused;
		}

		private void start() throws IOException {
			this.server.start();
			this.running = true;
			this.pid = Long.parseLong(infoField(admin(this, (commands) -> commands.info("server")), "process_id"));
			String myId = admin(this, RedisCommands::clusterMyId);
			if (this.id != null && !this.id.equals(myId)) {
				throw new IllegalStateException(this + " came back as node " + myId + ", not " + this.id);
			}
			this.id = myId;
		}

		private void signal(String signal) {
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

		private void stop() throws IOException {
			if (this.paused) {
				signal("CONT");
			}
			this.running = false;
			this.server.stop();
		}

		@Override
		public String toString() {
			return "127.0.0.1:" + this.port;
		}

	}

	private static String infoField(String info, String field) {
		return info.lines()
			.filter((line) -> line.startsWith(field + ":"))
			.map((line) -> line.substring(field.length() + 1).trim())
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No " + field + " in INFO"));
	}

}
