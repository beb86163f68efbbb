package io.github.distributelock.reactive;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

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

}
