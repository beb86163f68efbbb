package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A multi-key request with an owner value whose release of one of its keys is still to be
 * sent (retried after a store failure whose answer was lost although the store applied
 * it) is refused, as a single-key claim is: the retried release would end the new claim
 * of that key, which the store cannot tell from the old one.
 */
class MultiKeyOwnerValueTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final AnswerLost backend = new AnswerLost(this.store);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend));

	private final DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void aSingleKeyClaimWithTheOwnerValueOfAPendingReleaseIsRefused() throws Exception {
		releaseFailsWithItsAnswerLost("owner.a", "value-1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.lock.tryLock("owner.a", "value-1", 0, -1))
			.withMessageContaining("is still to be sent");
	}

	@Test
	void aMultiKeyClaimWithTheOwnerValueOfAPendingReleaseIsRefused() throws Exception {
		releaseFailsWithItsAnswerLost("owner.a", "value-2");
		LockRequest both = LockRequest.all(LockRequest.of("owner.a"), LockRequest.of("owner.b")).withOwner("value-2");
		Optional<LockHandle> taken = Optional.empty();
		try {
			taken = this.lock.tryAcquire(both);
		}
		catch (IllegalArgumentException ex) {
			assertThat(ex).hasMessageContaining("is still to be sent");
		}
		try {
			if (taken.isPresent()) {
				// Held: then it must hold alone once the pending release has been sent.
				await().atMost(BOUND).until(() -> this.backend.releases.get() >= 2);
				assertThat(this.other.tryAcquire("owner.a", Duration.ZERO, null))
					.as("key of a held multi-key handle taken by another instance")
					.isEmpty();
			}
			assertThat(taken).as("refused, as a single-key claim is").isEmpty();
		}
		finally {
			taken.ifPresent(LockHandle::close);
		}
	}

	@Test
	void aNonBlockingMultiKeyClaimWithTheOwnerValueOfAPendingReleaseIsRefused() throws Exception {
		releaseFailsWithItsAnswerLost("owner.a", "value-3");
		LockRequest both = LockRequest.all(LockRequest.of("owner.a"), LockRequest.of("owner.b")).withOwner("value-3");
		CompletableFuture<Optional<LockHandle>> taken = this.lock.tryAcquireAsync(both);
		assertThat(taken).failsWithin(BOUND)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(IllegalArgumentException.class);
	}

	/**
	 * Takes {@code key} with {@code value}; its release is applied, its answer lost, and
	 * so are those of its retries until the test ends, so that it stays pending.
	 */
	private void releaseFailsWithItsAnswerLost(String key, String value) throws InterruptedException {
		assertThat(this.lock.tryLock(key, value, 0, -1)).isTrue();
		this.backend.loseAnswers = true;
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(() -> this.lock.releaseLock(key, value));
		assertThat(this.store.isLocked(key)).isFalse();
		// Sent, and from 50 ms on retried in the background, which a slow machine can
		// reach before this line.
		assertThat(this.backend.releases).hasValueGreaterThanOrEqualTo(1);
	}

	@AfterEach
	void answerReleases() {
		this.backend.loseAnswers = false;
	}

	/** Applies releases, then fails them as if their answers had been lost, while set. */
	static final class AnswerLost extends CountingLockBackend {

		volatile boolean loseAnswers;

		AnswerLost(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			CompletionStage<Boolean> released = super.release(claim);
			if (!this.loseAnswers) {
				return released;
			}
			return released.thenCompose((applied) -> CompletableFuture.failedFuture(
					new UncheckedIOException(new IOException("connection reset after the release was applied"))));
		}

	}

}
