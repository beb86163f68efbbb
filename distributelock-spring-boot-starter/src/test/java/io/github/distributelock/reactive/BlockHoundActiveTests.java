package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * BlockHound is installed in the JVM of the reactive tests, so that they cannot pass
 * because its installation silently failed.
 */
@Tag("blockhound")
@ExtendWith(BlockHoundExtension.class)
class BlockHoundActiveTests {

	@Test
	void aBlockingCallOnAReactorThreadFails() {
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> Mono.fromCallable(() -> {
			Thread.sleep(1);
			return "slept";
		}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10)))
			.havingRootCause()
			.isInstanceOf(BlockingOperationError.class);
	}

	/**
	 * ZooKeeper's EventThread runs watches and Curator's background callbacks, the
	 * starter's among them: blocking there fails, while the thread's own wait for the
	 * next event does not (it would kill the thread and, with it, the session).
	 */
	@Test
	void aBlockingCallInAZooKeeperCallbackFailsAndTheEventThreadServesTheNextOne() throws Exception {
		try (TestingServer server = EmbeddedZooKeeper.startServer();
				CuratorFramework client = EmbeddedZooKeeper.newClient(server.getConnectString(),
						Duration.ofSeconds(10))) {
			CompletableFuture<Throwable> blocked = new CompletableFuture<>();
			client.checkExists().inBackground((curator, event) -> {
				try {
					Thread.sleep(1);
					blocked.complete(null);
				}
				catch (Throwable ex) {
					blocked.complete(ex);
				}
			}).forPath("/");
			assertThat(blocked.get(10, TimeUnit.SECONDS)).isInstanceOf(BlockingOperationError.class);
			CompletableFuture<String> next = new CompletableFuture<>();
			client.checkExists()
				.inBackground((curator, event) -> next.complete(Thread.currentThread().getName()))
				.forPath("/");
			assertThat(next.get(10, TimeUnit.SECONDS)).endsWith("-EventThread");
		}
	}

}
