package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;

/**
 * An in-memory store that applies the attempts of one key at once and answers them only
 * once {@link #answer} completes, so that a test can keep an acquisition in flight (and a
 * lock service's {@code close()} in its drain) for as long as it needs; it takes several
 * keys in one call, as the memory store does.
 */
public final class HeldBackAnswers extends ForwardingMultiKeyLockBackend {

	/** Counted down when the held-back key's attempt has been applied. */
	public final CountDownLatch applied = new CountDownLatch(1);

	/** Completed to let the held-back answers through. */
	public final CompletableFuture<Void> answer = new CompletableFuture<>();

	private final String key;

	/**
	 * Holds back the answers of the attempts on {@code key}.
	 * @param memory the store
	 * @param key the key whose answers are held back
	 */
	public HeldBackAnswers(MemoryLockBackend memory, String key) {
		super(memory);
		this.key = key;
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		CompletionStage<AcquireResult> attempt = this.delegate.tryAcquire(claim, lease);
		if (!claim.key().equals(this.key)) {
			return attempt;
		}
		this.applied.countDown();
		return attempt.thenCombine(this.answer, (result, go) -> result);
	}

}
