package io.github.distributelock.sample.webflux.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;

/**
 * A redis-server from the embedded-redis jar, started on a loopback address only when
 * nothing accepts connections there yet: the first instance of the shop serves the
 * others, and an external Redis is used as it is.
 * <p>
 * The same class as the servlet sample's: the two samples share no code, so that each can
 * be read, and copied, on its own.
 *
 * @since 1.0.0
 */
public final class EmbeddedRedisServer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisServer.class);

	private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|\\[?[0-9A-Fa-f:]+]?");

	private static final int PROBE_TIMEOUT_MILLIS = 500;

	private final @Nullable String address;

	private @Nullable RedisServer server;

	private EmbeddedRedisServer(@Nullable String address, @Nullable RedisServer server) {
		this.address = address;
		this.server = server;
	}

	/**
	 * Starts a redis-server on {@code host:port}, unless the host is not a loopback
	 * address or something already accepts connections there.
	 * @param host the host the application connects to
	 * @param port the port the application connects to
	 * @return the server, running or not
	 * @throws IllegalStateException if the server was needed and did not start
	 */
	public static EmbeddedRedisServer startIfAbsent(String host, int port) {
		InetAddress address = loopbackAddress(host);
		if (address == null) {
			return notStarted("Redis host '" + host + "' is not a loopback address");
		}
		if (acceptsConnections(address, port)) {
			return notStarted("Redis already accepts connections on " + host + ":" + port);
		}
		RedisServer server = start(address, port);
		if (server == null) {
			return notStarted("Another process started Redis on " + host + ":" + port + " at the same time");
		}
		logger.info("Started an embedded Redis on " + address.getHostAddress() + ":" + port
				+ "; other instances pointed at this port use it until this one stops");
		return new EmbeddedRedisServer(address.getHostAddress() + ":" + port, server);
	}

	/**
	 * Logs why no embedded Redis is started and returns a server that does not run.
	 * @param reason why the configured Redis is used as it is
	 * @return a server that does not run
	 */
	public static EmbeddedRedisServer notStarted(String reason) {
		logger.info(reason + ": using it as it is, without an embedded Redis");
		return new EmbeddedRedisServer(null, null);
	}

	private static @Nullable RedisServer start(InetAddress address, int port) {
		try {
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.bind(address.getHostAddress())
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			server.start();
			return server;
		}
		catch (IOException ex) {
			if (acceptsConnections(address, port)) {
				return null;
			}
			throw new IllegalStateException("Could not start an embedded Redis on " + address.getHostAddress() + ":"
					+ port + ". Free the port, point spring.data.redis.* at a running Redis, "
					+ "or set sample.embedded-redis.enabled=false", ex);
		}
	}

	/**
	 * The loopback address {@code host} names, without any DNS lookup: only
	 * {@code localhost} and IP literals are recognised.
	 */
	static @Nullable InetAddress loopbackAddress(String host) {
		if (!host.equalsIgnoreCase("localhost") && !IP_LITERAL.matcher(host).matches()) {
			return null;
		}
		try {
			InetAddress address = InetAddress.getByName(host);
			return address.isLoopbackAddress() ? address : null;
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	static boolean acceptsConnections(InetAddress address, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address, port), PROBE_TIMEOUT_MILLIS);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Whether this instance started the redis-server and it still runs.
	 * @return whether the embedded server runs
	 */
	public boolean isRunning() {
		RedisServer server = this.server;
		return server != null && server.isActive();
	}

	/**
	 * Stops the redis-server if this instance started it; does nothing otherwise.
	 * @throws IOException if the server could not be stopped
	 */
	@Override
	public synchronized void close() throws IOException {
		RedisServer server = this.server;
		if (server != null) {
			this.server = null;
			server.stop();
			logger.info("Stopped the embedded Redis on " + this.address);
		}
	}

}
