package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;

import io.github.distributelock.Closeables;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisSentinel;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * A real Redis master, one replica of it and one Sentinel (quorum 1) watching them, all
 * from the embedded-redis jar on free loopback ports. {@link #close()} stops every
 * process and every client it made, also after a failed test.
 */
public final class EmbeddedRedisSentinel implements AutoCloseable {

	/** The name the Sentinel knows the master by. */
	public static final String MASTER_NAME = "distributelock";

	/** How long the master must be silent before the Sentinel holds it down. */
	public static final Duration DOWN_AFTER = Duration.ofMillis(500);

	private static final Duration STARTUP = Duration.ofSeconds(20);

	private final Closeables closeables = new Closeables();

	private final List<Path> directories = new ArrayList<>();

	private final ClientResources clientResources;

	private int masterPort;

	private int replicaPort;

	private int sentinelPort;

	private RedisServer master;

	private EmbeddedRedisSentinel() {
		// Reconnect every 100 ms instead of Lettuce's exponential back-off, so that the
		// time a client takes to find the promoted master reflects the failover.
		this.clientResources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
		this.closeables.add(() -> this.clientResources.shutdown().get());
	}

	/** Starts a master, a replica replicating from it directly, and a Sentinel. */
	public static EmbeddedRedisSentinel start() {
		return start((masterPort) -> masterPort);
	}

	/**
	 * Starts a master, a replica and a Sentinel.
	 * @param replicationRoute gives, for the master's port, the loopback port the replica
	 * replicates from, such as a proxy's
	 */
	public static EmbeddedRedisSentinel start(IntUnaryOperator replicationRoute) {
		return Closeables.startOrClose(new EmbeddedRedisSentinel(),
				(topology) -> topology.startServers(replicationRoute));
	}

	private void startServers(IntUnaryOperator replicationRoute) {
		this.masterPort = EmbeddedRedis.freePort();
		// Killed with SIGKILL at stop, as a crash would.
		this.master = startServer(this.masterPort, true, null);
		this.replicaPort = EmbeddedRedis.freePort();
		startServer(this.replicaPort, false, "replicaof 127.0.0.1 " + replicationRoute.applyAsInt(this.masterPort));
		StringRedisTemplate replica = template(this.replicaPort);
		await("replica in sync").atMost(STARTUP)
			.until(() -> "up".equals(replicationInfo(replica, "master_link_status")));
		this.sentinelPort = EmbeddedRedis.freePort();
		RedisSentinel sentinel = RedisSentinel.newRedisSentinel()
			.port(this.sentinelPort)
			.masterPort(this.masterPort)
			.masterName(MASTER_NAME)
			.quorumSize(1)
			.downAfterMilliseconds(DOWN_AFTER.toMillis())
			// Also how long Sentinel leaves a replica that replicates through another
			// port (a proxy) before it points it at the master directly; well above the
			// length of a test, and it does not slow a promotion with one replica.
			.failOverTimeout(30_000)
			.parallelSyncs(1)
			.build();
		startProcess(sentinel::start);
		this.closeables.add(sentinel::stop);
		await("sentinel knows the replica").atMost(STARTUP).ignoreExceptions().until(() -> {
			List<Map<String, String>> replicas = sentinel((commands) -> commands.sync().replicas(MASTER_NAME));
			return replicas.size() == 1 && "slave".equals(replicas.get(0).get("flags"))
					&& "ok".equals(replicas.get(0).get("master-link-status"));
		});
	}

	private RedisServer startServer(int port, boolean killAtStop, @Nullable String replicaOf) {
		try {
			Path directory = Files.createTempDirectory("distributelock-redis-" + port + "-");
			this.directories.add(directory);
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.setting("bind 127.0.0.1")
				.setting("save \"\"")
				.setting("appendonly no")
				.setting("dir " + directory)
				// Streams the first sync without a file or the default 5 s delay.
				.setting("repl-diskless-sync yes")
				.setting("repl-diskless-sync-delay 0")
				.settingIf(replicaOf != null, replicaOf)
				.onShutdownForceStop(killAtStop)
				.build();
			startProcess(server::start);
			this.closeables.add(server::stop);
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void startProcess(IoAction start) {
		try {
			start.run();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public int masterPort() {
		return this.masterPort;
	}

	public int replicaPort() {
		return this.replicaPort;
	}

	public int sentinelPort() {
		return this.sentinelPort;
	}

	/**
	 * Kills the master with SIGKILL and returns once its port refuses connections.
	 */
	public void killMaster() throws IOException {
		this.master.stop();
		await("master gone").atMost(Duration.ofSeconds(10)).until(() -> !EmbeddedRedis.accepts(this.masterPort));
	}

	/**
	 * Starts a new, empty server on a fresh port as a replica of the promoted master, as
	 * an operator replaces a lost node, and returns once it is in sync.
	 */
	public void addReplicaOfPromotedMaster() {
		int port = EmbeddedRedis.freePort();
		startServer(port, false, "replicaof 127.0.0.1 " + this.replicaPort);
		StringRedisTemplate added = template(port);
		await("new replica in sync").atMost(STARTUP)
			.until(() -> "up".equals(replicationInfo(added, "master_link_status")));
	}

	/** The port of the master the Sentinel currently names. */
	public int currentMasterPort() {
		return ((InetSocketAddress) sentinel((connection) -> connection.sync().getMasterAddrByName(MASTER_NAME)))
			.getPort();
	}

	/**
	 * A connection factory that finds the master through the Sentinel, as an application
	 * with {@code spring.data.redis.sentinel.*} does, and follows a failover.
	 */
	public LettuceConnectionFactory newSentinelConnectionFactory() {
		return started(new LettuceConnectionFactory(
				new RedisSentinelConfiguration().master(MASTER_NAME).sentinel("127.0.0.1", this.sentinelPort),
				clientConfiguration()));
	}

	/** A template on a connection to one server, to read it directly. */
	public StringRedisTemplate template(int port) {
		return new StringRedisTemplate(started(new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port), clientConfiguration())));
	}

	private LettuceClientConfiguration clientConfiguration() {
		return LettuceClientConfiguration.builder()
			.clientResources(this.clientResources)
			.commandTimeout(Duration.ofSeconds(2))
			.build();
	}

	/** Starts {@code factory} and destroys it at {@link #close()}. */
	private LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		this.closeables.add(factory::destroy);
		return factory;
	}

	/** One field of {@code INFO replication} of the server behind the template. */
	public static @Nullable String replicationInfo(StringRedisTemplate template, String field) {
		Properties info = template
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("replication"), true);
		return (info != null) ? info.getProperty(field) : null;
	}

	private <T> T sentinel(SentinelCall<T> call) {
		RedisClient client = RedisClient.create(this.clientResources, RedisURI.create("127.0.0.1", this.sentinelPort));
		try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
			return call.apply(connection);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	/**
	 * Closes the clients, then stops the Sentinel, the replica and the master, the
	 * reverse of their start.
	 */
	@Override
	public void close() throws Exception {
		try {
			this.closeables.close();
		}
		finally {
			for (Path directory : this.directories) {
				try (Stream<Path> files = Files.walk(directory)) {
					files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
				}
			}
		}
	}

	private interface IoAction {

		void run() throws IOException;

	}

	private interface SentinelCall<T> {

		T apply(StatefulRedisSentinelConnection<String, String> connection);

	}

}
