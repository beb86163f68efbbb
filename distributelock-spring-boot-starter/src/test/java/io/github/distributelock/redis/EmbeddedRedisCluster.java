package io.github.distributelock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.distributelock.Closeables;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * A real Redis Cluster of three masters with one replica each, six redis-server processes
 * from the embedded-redis jar on free loopback ports ({@link EmbeddedRedisClusterNode}),
 * with the faults a failover test needs: kill a master, pause a replica, promote a
 * replica, migrate a slot, and wait until the cluster is whole again. {@link #close()}
 * stops every process and client it started, also after a failed test.
 * <p>
 * A killed node started again rejoins with its identity and, its slots having moved on,
 * becomes a replica of the node that took them over.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {

	/** How long a node must be unreachable before the others hold it down. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(EmbeddedRedisCluster.class);

	private static final int MASTERS = 3;

	/** Bound on forming the cluster and on healing it after a fault. */
	private static final Duration HEALING = Duration.ofSeconds(30);

	private final Closeables closeables = new Closeables();

	private final Duration nodeTimeout;

	private final ClientResources clientResources;

	private final RedisClient adminClient;

	private final List<EmbeddedRedisClusterNode> nodes = new ArrayList<>();

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
		this.closeables.add(() -> this.adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
	}

	/**
	 * Starts six nodes, gives each of three a third of the slots and the other three one
	 * master each to replicate, and returns once every node sees the same healthy
	 * cluster.
	 * @param nodeTimeout the nodes' {@code cluster-node-timeout}
	 * @return the running cluster
	 */
	public static EmbeddedRedisCluster start(Duration nodeTimeout) {
		long start = System.nanoTime();
		EmbeddedRedisCluster cluster = Closeables.startOrClose(new EmbeddedRedisCluster(nodeTimeout),
				EmbeddedRedisCluster::form);
		logger.info("Redis Cluster of " + cluster.nodes.size() + " nodes formed in "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		return cluster;
	}

	private void form() {
		for (int i = 0; i < 2 * MASTERS; i++) {
			this.nodes.add(this.closeables.add(EmbeddedRedisClusterNode.start(this.nodeTimeout, this.adminClient)));
		}
		for (int i = 0; i < MASTERS; i++) {
			int[] slots = IntStream.range(SlotHash.SLOT_COUNT * i / MASTERS, SlotHash.SLOT_COUNT * (i + 1) / MASTERS)
				.toArray();
			this.nodes.get(i).admin((commands) -> commands.clusterAddSlots(slots));
		}
		EmbeddedRedisClusterNode first = this.nodes.get(0);
		for (EmbeddedRedisClusterNode node : this.nodes.subList(1, this.nodes.size())) {
			first.admin((commands) -> commands.clusterMeet("127.0.0.1", node.port()));
		}
		for (EmbeddedRedisClusterNode node : this.nodes) {
			await("node " + node + " knows every node").atMost(HEALING)
				.until(() -> node.clusterInfo().contains("cluster_known_nodes:" + this.nodes.size()));
		}
		for (int i = 0; i < MASTERS; i++) {
			String masterId = this.nodes.get(i).id();
			this.nodes.get(MASTERS + i).admin((commands) -> commands.clusterReplicate(masterId));
		}
		awaitHealthy();
	}

	/** The seed addresses of a client, {@code 127.0.0.1:port} of every node. */
	public List<String> seedNodes() {
		return this.nodes.stream().map((node) -> "127.0.0.1:" + node.port()).toList();
	}

	/**
	 * The node that serves {@code key} as it sees itself: a master that owns the key's
	 * slot in its own view of the cluster.
	 * @param key a Redis key
	 * @return that master
	 */
	public EmbeddedRedisClusterNode masterOf(String key) {
		return masterOfSlot(SlotHash.getSlot(key));
	}

	private EmbeddedRedisClusterNode masterOfSlot(int slot) {
		for (EmbeddedRedisClusterNode node : this.nodes) {
			if (node.isRunning() && !node.isPaused()) {
				RedisClusterNode self = node.self();
				if (self.is(RedisClusterNode.NodeFlag.UPSTREAM) && self.hasSlot(slot)) {
					return node;
				}
			}
		}
		throw new IllegalStateException("No running master claims slot " + slot);
	}

	/**
	 * The running node that a client has subscribed to {@code channel} on: each node
	 * counts only its own clients' subscriptions ({@code PUBSUB NUMSUB}).
	 * @param channel a pub/sub channel
	 * @return that node, or {@code null} if no running node has a subscriber
	 */
	public @Nullable EmbeddedRedisClusterNode subscribedTo(String channel) {
		for (EmbeddedRedisClusterNode node : this.nodes) {
			if (node.isRunning() && !node.isPaused() && node.subscribers(channel) > 0) {
				return node;
			}
		}
		return null;
	}

	/**
	 * Whether {@code node} sees itself as a master.
	 * @param node a running node
	 * @return whether it is a master
	 */
	public boolean isMaster(EmbeddedRedisClusterNode node) {
		return node.self().is(RedisClusterNode.NodeFlag.UPSTREAM);
	}

	/**
	 * The replica of {@code master}, as the master sees it.
	 * @param master a running master
	 * @return its replica
	 */
	public EmbeddedRedisClusterNode replicaOf(EmbeddedRedisClusterNode master) {
		Partitions view = master.view();
		for (EmbeddedRedisClusterNode node : this.nodes) {
			RedisClusterNode described = view.getPartitionByNodeId(node.id());
			if (described != null && master.id().equals(described.getSlaveOf())) {
				return node;
			}
		}
		throw new IllegalStateException(master + " has no replica");
	}

	/**
	 * Kills a node with SIGKILL, as a crash would, and returns once its port refuses
	 * connections.
	 * @param node a running node
	 */
	public void kill(EmbeddedRedisClusterNode node) throws IOException {
		node.kill();
	}

	/**
	 * Stops a replica (SIGSTOP) and cuts its replication link at its master, so that
	 * nothing the master writes from now on reaches it. Stopping the process alone is not
	 * enough: its socket's kernel buffer still receives the replication stream and hands
	 * it over at {@link #resume SIGCONT}; and {@code CLIENT PAUSE} on the replica holds
	 * the stream back but still acknowledges it, which would make {@code WAIT} count a
	 * write the replica never applied.
	 * @param replica a running replica
	 */
	public void pause(EmbeddedRedisClusterNode replica) {
		EmbeddedRedisClusterNode master = masterOfReplica(replica);
		replica.signal("STOP");
		master.admin((commands) -> commands.clientKill(KillArgs.Builder.typeSlave()));
		await("replication link of " + replica + " cut at " + master).atMost(Duration.ofSeconds(10))
			.until(() -> master.replicationInfo().contains("connected_slaves:0"));
	}

	/**
	 * Continues a paused node (SIGCONT).
	 * @param node a paused node
	 */
	public void resume(EmbeddedRedisClusterNode node) {
		node.signal("CONT");
	}

	/**
	 * Promotes a replica at once with {@code CLUSTER FAILOVER TAKEOVER}, without its
	 * master's consent nor the other masters' votes, and returns once it serves its
	 * master's slots.
	 * @param replica a running replica
	 */
	public void promote(EmbeddedRedisClusterNode replica) {
		replica.admin((commands) -> commands.clusterFailover(false, true));
		awaitMaster(replica);
	}

	/**
	 * Hands a master's slots to its replica with a coordinated {@code CLUSTER FAILOVER}:
	 * the master stops writes until the replica has caught up, so nothing is lost, and
	 * becomes the replica's replica.
	 * @param replica a running replica whose master runs too
	 */
	public void failover(EmbeddedRedisClusterNode replica) {
		replica.admin((commands) -> commands.clusterFailover(false));
		awaitMaster(replica);
	}

	/**
	 * Begins to move a slot to another master, as {@code redis-cli --cluster reshard}
	 * does: the source answers {@code ASK} for the slot's keys it does not have, the
	 * target serves them after {@code ASKING}.
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void beginMigration(int slot, EmbeddedRedisClusterNode target) {
		EmbeddedRedisClusterNode source = masterOfSlot(slot);
		target.admin((commands) -> commands.clusterSetSlotImporting(slot, source.id()));
		source.admin((commands) -> commands.clusterSetSlotMigrating(slot, target.id()));
	}

	/**
	 * Moves every key of a slot under migration to its target ({@code MIGRATE}).
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void migrateKeys(int slot, EmbeddedRedisClusterNode target) {
		EmbeddedRedisClusterNode source = masterOfSlot(slot);
		List<String> keys = source.admin((commands) -> commands.clusterGetKeysInSlot(slot, 1000));
		if (!keys.isEmpty()) {
			source.admin((commands) -> commands.migrate("127.0.0.1", target.port(), 0, 2000,
					MigrateArgs.Builder.keys(keys)));
		}
	}

	/**
	 * Ends a migration begun with {@link #beginMigration}, once the source has no key of
	 * the slot left, and returns once every node sees the target serve it.
	 * @param slot the hash slot
	 * @param target the master that is to serve it
	 */
	public void endMigration(int slot, EmbeddedRedisClusterNode target) {
		EmbeddedRedisClusterNode source = masterOfSlot(slot);
		target.admin((commands) -> commands.clusterSetSlotNode(slot, target.id()));
		source.admin((commands) -> commands.clusterSetSlotNode(slot, target.id()));
		awaitHealthy();
		await("slot " + slot + " on " + target).atMost(HEALING).until(() -> masterOfSlot(slot) == target);
	}

	/**
	 * Waits until {@code node} sees itself as a master that owns slots.
	 * @param node a running node
	 */
	public void awaitMaster(EmbeddedRedisClusterNode node) {
		await(node + " serves slots as a master").atMost(HEALING).ignoreExceptions().until(() -> {
			RedisClusterNode self = node.self();
			return self.is(RedisClusterNode.NodeFlag.UPSTREAM) && !self.hasNoSlots();
		});
	}

	/**
	 * Undoes the faults: continues every paused node, starts every killed node again, and
	 * waits until the cluster is healthy.
	 */
	public void restore() throws IOException {
		for (EmbeddedRedisClusterNode node : this.nodes) {
			if (node.isPaused()) {
				resume(node);
			}
		}
		for (EmbeddedRedisClusterNode node : this.nodes) {
			if (!node.isRunning()) {
				node.start();
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
			for (EmbeddedRedisClusterNode node : this.nodes) {
				String info = node.clusterInfo();
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")
						|| !info.contains("cluster_known_nodes:" + this.nodes.size())) {
					return false;
				}
				String seen = node.describeCluster();
				if (seen == null || (topology != null && !topology.equals(seen))) {
					return false;
				}
				topology = seen;
				String replication = node.replicationInfo();
				if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
					return false;
				}
			}
			return true;
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

	private EmbeddedRedisClusterNode masterOfReplica(EmbeddedRedisClusterNode replica) {
		String masterId = replica.self().getSlaveOf();
		return this.nodes.stream()
			.filter((node) -> node.id().equals(masterId))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(replica + " replicates no known master"));
	}

	/**
	 * Closes its connections, kills every node (continuing paused ones first) and deletes
	 * the nodes' directories.
	 */
	@Override
	public void close() throws Exception {
		this.closeables.close();
	}

}
