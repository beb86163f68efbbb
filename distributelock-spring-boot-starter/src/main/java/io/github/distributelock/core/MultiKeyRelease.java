package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The store releases of several keys that the backend took in one call
 * ({@link MultiKeyLockBackend}), gathered while each key's {@link HeldLock} lets go of it
 * and then {@link #send() sent} in one call too.
 * <p>
 * Each held lock still owns its release: its state, its hold count, its minimum hold, its
 * loss and its events; only the round trip is shared. A release asked for after
 * {@link #send()} (the end of a minimum hold, later) goes to the store alone.
 */
final class MultiKeyRelease implements StoreRelease {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private final StoreCalls store;

	private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();

	private volatile boolean sent;

	/**
	 * @param store the store, whose backend took the claims to release together, and so
	 * releases them together
	 */
	MultiKeyRelease(StoreCalls store) {
		this.store = store;
	}

	/**
	 * Releases held locks together, the last taken first, each with all its holds, and
	 * completes once every release has ended. A store failure is logged with its key and
	 * retried in the background by {@link StoreCalls}; what else fails (a lost lock with
	 * {@code throwOnLost}) concerns no caller, and is logged here at DEBUG.
	 */
	static CompletableFuture<Void> releaseTogether(StoreCalls store, List<HeldLock> locks,
			@Nullable Executor callerExecutor) {
		MultiKeyRelease batch = new MultiKeyRelease(store);
		CompletableFuture<?>[] releases = new CompletableFuture<?>[locks.size()];
		for (int i = locks.size() - 1; i >= 0; i--) {
			HeldLock lock = locks.get(i);
			releases[i] = lock.releaseAll(callerExecutor, batch).exceptionally((failure) -> {
				if (logger.isDebugEnabled()) {
					logger.debug("Gave back lock '" + lock.key + "' of a multi-key request with a failure", failure);
				}
				return false;
			});
		}
		batch.send();
		return CompletableFuture.allOf(releases);
	}

	/**
	 * Gives back claims that an attempt may have taken although its answer was lost or
	 * came too late: no held lock was made of them.
	 * @return completes when every release has ended; exceptionally with the first
	 * failure
	 */
	static CompletableFuture<Void> giveBack(StoreCalls store, List<LockBackend.Claim> claims,
			List<@Nullable Long> leaseEndNanos) {
		MultiKeyRelease batch = new MultiKeyRelease(store);
		CompletableFuture<?>[] releases = new CompletableFuture<?>[claims.size()];
		for (int i = 0; i < claims.size(); i++) {
			releases[i] = batch.release(claims.get(i), leaseEndNanos.get(i));
		}
		batch.send();
		return CompletableFuture.allOf(releases);
	}

	@Override
	public CompletableFuture<Boolean> release(LockBackend.Claim claim, @Nullable Long leaseEndNanos) {
		if (this.sent || !claim.kind().equals(LockKind.EXCLUSIVE)) {
			// The store releases together only what it takes together, plain locks: a
			// lock of another kind that the request re-entered is released as it was
			// taken.
			return this.store.release(claim, leaseEndNanos);
		}
		Pending release = new Pending(claim, leaseEndNanos, new CompletableFuture<>());
		this.pending.add(release);
		if (this.sent && this.pending.remove(release)) {
			// Sent meanwhile: this one goes alone.
			return this.store.release(claim, leaseEndNanos);
		}
		return release.released;
	}

	/** Sends the releases gathered so far. */
	void send() {
		this.sent = true;
		List<Pending> releases = new ArrayList<>();
		for (Pending release; (release = this.pending.poll()) != null;) {
			releases.add(release);
		}
		if (releases.isEmpty()) {
			return;
		}
		List<LockBackend.Claim> claims = new ArrayList<>(releases.size());
		List<@Nullable Long> leaseEnds = new ArrayList<>(releases.size());
		List<CompletableFuture<Boolean>> answers = new ArrayList<>(releases.size());
		for (Pending release : releases) {
			claims.add(release.claim);
			leaseEnds.add(release.leaseEndNanos);
			answers.add(release.released);
		}
		if (releases.size() == 1) {
			// The other keys stay held (re-entered, or kept for a minimum hold).
			relay(this.store.release(claims.get(0), leaseEnds.get(0)), answers.get(0));
			return;
		}
		this.store.releaseAll(claims, leaseEnds, answers);
	}

	private static void relay(CompletableFuture<Boolean> answer, CompletableFuture<Boolean> released) {
		answer.whenComplete((value, failure) -> {
			if (failure != null) {
				released.completeExceptionally(StoreCalls.unwrap(failure));
			}
			else {
				released.complete(value);
			}
		});
	}

	private record Pending(LockBackend.Claim claim, @Nullable Long leaseEndNanos, CompletableFuture<Boolean> released) {
	}

}
