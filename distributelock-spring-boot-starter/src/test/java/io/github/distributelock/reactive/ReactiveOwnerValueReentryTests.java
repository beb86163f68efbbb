package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock asked for with an owner value ({@code withOwner}) is owned by that value, not by
 * a thread or a pipeline, and is not reentrant: a thread neither re-enters its own lock
 * with such a request nor re-enters a lock taken with one, and a reactive pipeline
 * follows the same rules. The pipeline re-entered both through its Reactor context: the
 * nested request ran under a hold it did not own, and its owner value owned nothing.
 */
class ReactiveOwnerValueReentryTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	private static final Supplier<LockFailedException> BUSY = () -> new LockFailedException("busy", null, "k");

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	private final ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> this.lock);

	@Test
	void aRequestWithAnOwnerValueDoesNotReenterTheHoldOfTheThreadOrThePipeline() throws Exception {
		LockRequest plain = LockRequest.of("owner.k").withWaitTime(Duration.ZERO);
		LockRequest owned = plain.withOwner("value-1");
		try (LockHandle held = this.lock.tryAcquire(plain).orElseThrow()) {
			assertThat(this.lock.tryAcquire(owned)).as("a thread").isEmpty();
		}
		assertRefused(nested(plain, owned), "a pipeline");
		assertHeldByNobody("owner.k");
	}

	@Test
	void aLockTakenWithAnOwnerValueIsNotReenteredByTheThreadOrThePipeline() throws Exception {
		LockRequest plain = LockRequest.of("owner.k").withWaitTime(Duration.ZERO);
		LockRequest owned = plain.withOwner("value-1");
		try (LockHandle held = this.lock.tryAcquire(owned).orElseThrow()) {
			assertThat(this.lock.tryAcquire(plain)).as("a thread, without an owner value").isEmpty();
			assertThat(this.lock.tryAcquire(owned)).as("a thread, with the holder's owner value").isEmpty();
		}
		assertRefused(nested(owned, plain), "a pipeline, without an owner value");
		assertRefused(nested(owned, owned), "a pipeline, with the holder's owner value");
		assertHeldByNobody("owner.k");
	}

	@Test
	void aMultiKeyRequestWithAnOwnerValueDoesNotReenterTheKeysHeld() throws Exception {
		LockRequest both = LockRequest.all(LockRequest.of("owner.a"), LockRequest.of("owner.b"))
			.withWaitTime(Duration.ZERO);
		try (LockHandle held = this.lock.tryAcquire(both).orElseThrow()) {
			assertThat(this.lock.tryAcquire(both.withOwner("value-1"))).as("a thread").isEmpty();
		}
		assertThat(nested(both, both.withOwner("value-1"))).as("a pipeline")
			.failsWithin(BOUND)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(LockFailedException.class);
		assertHeldByNobody("owner.a", "owner.b");
	}

	/**
	 * Requests without an owner value re-enter, on a thread and in a pipeline alike: the
	 * rule above is about owner values alone.
	 */
	@Test
	void aRequestWithoutAnOwnerValueReentersAsBefore() throws Exception {
		LockRequest plain = LockRequest.of("owner.k").withWaitTime(Duration.ZERO);
		try (LockHandle held = this.lock.tryAcquire(plain).orElseThrow()) {
			assertThat(this.lock.tryAcquire(plain)).as("a thread").hasValueSatisfying(LockHandle::close);
		}
		assertThat(nested(plain, plain)).as("a pipeline").succeedsWithin(BOUND).isEqualTo("entered");
		assertHeldByNobody("owner.k");
	}

	/** {@code inner} asked for within a pipeline that holds {@code outer}. */
	private CompletableFuture<String> nested(LockRequest outer, LockRequest inner) {
		return this.reactive
			.withLockMono(outer, (held) -> this.reactive.withLockMono(inner, (entered) -> Mono.just("entered"), BUSY),
					BUSY)
			.toFuture();
	}

	private void assertHeldByNobody(String... keys) {
		for (String key : keys) {
			await().atMost(BOUND).until(() -> !this.store.isLocked(key));
		}
		await().atMost(BOUND).until(() -> this.lock.heldLocks().isEmpty());
	}

	private static void assertRefused(CompletableFuture<?> nested, String who) {
		assertThat(nested).as(who)
			.failsWithin(BOUND)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(LockFailedException.class);
	}

}
