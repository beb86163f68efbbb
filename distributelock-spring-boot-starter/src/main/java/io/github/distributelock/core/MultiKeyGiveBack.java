package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The give-back of the keys that a multi-key request taken key by key took before one was
 * not taken in time, or failed: sent together, the last taken first, and waited for by
 * the caller until its deadline, and past it only as long as their releases are on their
 * way to the store, one round trip.
 * <p>
 * A release that first waits for a renewal of its lock in flight is not on its way yet:
 * that renewal may be stuck on a store that does not answer until the lease runs out (30
 * s by default), and a caller with a wait of 1 s waited that long. Such a give-back goes
 * on without the caller, retried by the engine if it fails, its key gated in this JVM
 * until the store has answered, as for a caller past its deadline behind a release of
 * this JVM ({@link HeldLock#releaseInFlight()}).
 */
final class MultiKeyGiveBack {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private MultiKeyGiveBack() {
	}

	/**
	 * Gives the keys back at once, whatever their minimum hold, as a request not taken
	 * whole leaves nothing in the store (a key the thread held already keeps that hold).
	 * They are sent together: one after the other, a store that does not answer would
	 * keep the caller a client timeout per key past its deadline.
	 * @return completes, never exceptionally, once every give-back has ended, or once the
	 * deadline has passed and those whose release was on its way to the store have
	 */
	static CompletableFuture<Void> giveBack(List<LockHandle> taken, Deadline deadline, StoreCalls store) {
		CompletableFuture<?>[] releases = releaseInReverse(taken);
		CompletableFuture<Void> all = CompletableFuture.allOf(releases);
		if (all.isDone()) {
			return all;
		}
		CompletableFuture<Void> waited = new CompletableFuture<>();
		all.whenComplete((ended, failure) -> waited.complete(null));
		Runnable atTheDeadline = () -> waitForThoseOnTheirWay(taken, releases, waited);
		if (deadline.hasPassed()) {
			atTheDeadline.run();
			return waited;
		}
		try {
			ScheduledFuture<?> due = store.schedule(atTheDeadline, deadline.remainingNanos());
			waited.whenComplete((ended, failure) -> due.cancel(false));
		}
		catch (RejectedExecutionException ex) {
			// Closed: its close waits for the releases of every held lock anyway.
			atTheDeadline.run();
		}
		return waited;
	}

	/**
	 * Completes {@code waited} once the give-backs whose release is on its way have
	 * ended, leaving those still behind a renewal in flight to go on alone.
	 */
	private static void waitForThoseOnTheirWay(List<LockHandle> taken, CompletableFuture<?>[] releases,
			CompletableFuture<Void> waited) {
		List<CompletableFuture<?>> onTheirWay = new ArrayList<>(releases.length);
		for (int i = 0; i < releases.length; i++) {
			CompletableFuture<?> release = releases[i];
			if (release.isDone()) {
				continue;
			}
			if (taken.get(i) instanceof Handle part && part.releaseWaitsForARenewal()) {
				logger.warn("Returning before the give-back of lock '" + part.key()
						+ "' of a multi-key request that was not taken whole: its release waits for a renewal in "
						+ "flight; it goes on in the background, and the key stays held by this instance until "
						+ "the store has answered");
				continue;
			}
			onTheirWay.add(release);
		}
		CompletableFuture.allOf(onTheirWay.toArray(CompletableFuture[]::new))
			.whenComplete((ended, failure) -> waited.complete(null));
	}

	/**
	 * Gives the keys back at once, the last taken first, without waiting for the store;
	 * each release completes once it has ended, failed ones logged.
	 */
	static CompletableFuture<?>[] releaseInReverse(List<LockHandle> taken) {
		CompletableFuture<?>[] releases = new CompletableFuture<?>[taken.size()];
		for (int i = taken.size() - 1; i >= 0; i--) {
			LockHandle handle = taken.get(i);
			CompletableFuture<Void> release = (handle instanceof Handle part) ? part.giveBackAsync()
					: handle.releaseAsync();
			releases[i] = release.exceptionally((failure) -> {
				logNotReleased(handle, failure);
				return null;
			});
		}
		return releases;
	}

	private static void logNotReleased(LockHandle handle, Throwable failure) {
		// The store retries a failed release in the background until the lease ends.
		logger.warn("Could not release lock '" + handle.key() + "' of a multi-key request that was not taken whole",
				failure);
	}

}
