package io.github.distributelock.fault;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Makes Lettuce send a call twice: Lettuce sends the commands of a dropped connection
 * again once it is back, so a call whose script ran on the server before the cut runs
 * again after it.
 */
final class ResentCalls {

	private ResentCalls() {
	}

	/**
	 * Starts {@code call} with the traffic through {@code proxy} delayed, cuts the
	 * connection once {@code ranOnTheServer} (the answer is still on its way), runs
	 * {@code meanwhile}, and lets the client connect again, which sends the call again.
	 * @return the answer to the call sent again
	 */
	static <T> T resent(TcpProxy proxy, Supplier<? extends CompletionStage<T>> call, BooleanSupplier ranOnTheServer,
			Runnable meanwhile) {
		proxy.latency(Duration.ofMillis(1500));
		CompletableFuture<T> answer = call.get().toCompletableFuture();
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(ranOnTheServer::getAsBoolean);
		assertThat(answer).as("the answer is still on its way when the connection is cut").isNotDone();
		proxy.cut();
		proxy.latency(Duration.ZERO);
		meanwhile.run();
		proxy.restore();
		return join(answer);
	}

}
