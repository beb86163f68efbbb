package io.github.distributelock.sample.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the shop starts its own Redis, and when it uses the one it finds.
 */
class EmbeddedRedisServerTests {

	private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

	@Test
	void startsOnAFreeLoopbackPortAndStopsWhenClosed() throws Exception {
		int port = freePort();
		try (EmbeddedRedisServer server = EmbeddedRedisServer.startIfAbsent("127.0.0.1", port)) {
			assertThat(server.isRunning()).isTrue();
			assertThat(EmbeddedRedisServer.acceptsConnections(LOOPBACK, port)).isTrue();
			server.close();
			assertThat(server.isRunning()).isFalse();
			assertThat(EmbeddedRedisServer.acceptsConnections(LOOPBACK, port)).isFalse();
		}
	}

	@Test
	void usesARedisThatAlreadyListensAndLeavesItRunning() throws Exception {
		int port = freePort();
		try (EmbeddedRedisServer first = EmbeddedRedisServer.startIfAbsent("localhost", port)) {
			try (EmbeddedRedisServer second = EmbeddedRedisServer.startIfAbsent("127.0.0.1", port)) {
				assertThat(second.isRunning()).isFalse();
			}
			assertThat(first.isRunning()).isTrue();
			assertThat(EmbeddedRedisServer.acceptsConnections(LOOPBACK, port)).isTrue();
		}
	}

	@Test
	void neverStartsForAHostThatIsNotLoopback() throws Exception {
		for (String host : new String[] { "redis.example.com", "10.0.0.1", "localhost.example.com" }) {
			try (EmbeddedRedisServer server = EmbeddedRedisServer.startIfAbsent(host, 6379)) {
				assertThat(server.isRunning()).isFalse();
			}
		}
	}

	@Test
	void recognisesLoopbackAddressesWithoutResolvingNames() {
		assertThat(EmbeddedRedisServer.loopbackAddress("localhost")).isNotNull();
		assertThat(EmbeddedRedisServer.loopbackAddress("127.0.0.1")).isNotNull();
		assertThat(EmbeddedRedisServer.loopbackAddress("::1")).isNotNull();
		assertThat(EmbeddedRedisServer.loopbackAddress("192.168.1.10")).isNull();
		assertThat(EmbeddedRedisServer.loopbackAddress("redis")).isNull();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
