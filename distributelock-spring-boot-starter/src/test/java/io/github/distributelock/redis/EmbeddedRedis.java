package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real redis-server from the embedded-redis jar, on a free loopback port. Tests share
 * one through {@link EmbeddedRedisExtension}; a test that stops or restarts its server
 * starts one of its own.
 */
public final class EmbeddedRedis implements AutoCloseable {

	private final RedisServer server;

	private final int port;

	private EmbeddedRedis(RedisServer server, int port) {
		this.server = server;
		this.port = port;
	}

	public static EmbeddedRedis start() {
		int port = freePort();
		try {
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.setting("bind 127.0.0.1")
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			server.start();
			return new EmbeddedRedis(server, port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public int port() {
		return this.port;
	}

	public LettuceConnectionFactory newConnectionFactory() {
		return connectionFactory(this.port, LettuceClientConfiguration.defaultConfiguration());
	}

	/**
	 * A started connection factory for a redis-server on {@code port} of the loopback
	 * address, such as a proxy's, whose commands fail after {@code commandTimeout}; the
	 * caller destroys it.
	 */
	public static LettuceConnectionFactory connectionFactory(int port, Duration commandTimeout) {
		return connectionFactory(port, LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
	}

	private static LettuceConnectionFactory connectionFactory(int port, LettuceClientConfiguration configuration) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port), configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Whether something accepts connections on {@code port} of the loopback address. */
	public static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Stops the server, as a crash does: it keeps nothing, as it runs without
	 * persistence.
	 */
	public void stop() throws IOException {
		this.server.stop();
	}

	/** Starts the stopped server again on the same port, empty. */
	public void restart() throws IOException {
		this.server.start();
	}

	@Override
	public void close() throws IOException {
		this.server.stop();
	}

}
