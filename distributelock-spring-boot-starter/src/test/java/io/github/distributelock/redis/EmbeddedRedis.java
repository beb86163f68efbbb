package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real redis-server from the embedded-redis jar, on a free loopback port.
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
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", this.port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
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
