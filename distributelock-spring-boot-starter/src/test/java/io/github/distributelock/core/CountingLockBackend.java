package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Passes every call to a real backend and counts them, so tests can see what the engine
 * asked of the store. Use {@link #of(LockBackend)}, which keeps the capabilities of the
 * backend it wraps: it batches the claims the backend batches
 * ({@link MultiKeyLockBackend}), and no others.
 */
public class CountingLockBackend implements MultiKeyLockBackend, LockStoreProbe, StoreClientThreads {

	private final LockBackend delegate;

	public final AtomicInteger acquireAttempts = new AtomicInteger();

	public final AtomicInteger renewals = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	/** While set, single-key releases fail as on a reset connection, unsent. */
	public volatile boolean failReleases;

	public final AtomicInteger acquireAllAttempts = new AtomicInteger();

	/**
	 * Multi-key attempts whose stage failed: the store failed, or its answer was lost.
	 */
	public final AtomicInteger acquireAllFailures = new AtomicInteger();

	public final AtomicInteger releaseAllCalls = new AtomicInteger();

	public final CountDownLatch waiting = new CountDownLatch(1);

	/** How many waits for a release began. */
	public final AtomicInteger awaitingRelease = new AtomicInteger();

	public CountingLockBackend(LockBackend delegate) {
		this.delegate = delegate;
	}

	/**
	 * Completes the hand-overs once counted down: a test holds them back to act while one
	 * is in flight. Counted down from the start unless a test {@link #holdBackHandOvers
	 * holds them back}.
	 */
	private volatile CountDownLatch handOversGo = new CountDownLatch(0);

	/** Counted down when a hand-over reached this backend. */
	public final CountDownLatch handingOver = new CountDownLatch(1);

	public final AtomicInteger handOvers = new AtomicInteger();

	/**
	 * Fair claims the store let hold as soon as their holder's release was sent
	 * ({@link HandOverLockBackend#admittedByRelease}), instead of a hand-over.
	 */
	public final AtomicInteger admissions = new AtomicInteger();

	private volatile Runnable onAdmission = () -> {
	};

	private volatile CompletableFuture<Void> waitsGo = CompletableFuture.completedFuture(null);

	private volatile CompletableFuture<Void> releasesGo = CompletableFuture.completedFuture(null);

	/**
	 * A counting backend with the capabilities of the delegate: a
	 * {@link SessionLockBackend} and a {@link HandOverLockBackend} if the delegate is
	 * one.
	 */
	public static CountingLockBackend of(LockBackend delegate) {
		if (delegate instanceof HandOverLockBackend handOver) {
			return (delegate instanceof SessionLockBackend session) ? new SessionHandingOver(handOver, session)
					: new HandingOver(handOver);
		}
		return (delegate instanceof SessionLockBackend session) ? new Session(session)
				: new CountingLockBackend(delegate);
	}

	/**
	 * Holds back the answers of later hand-overs until the returned latch is counted
	 * down.
	 */
	public CountDownLatch holdBackHandOvers() {
		CountDownLatch go = new CountDownLatch(1);
		this.handOversGo = go;
		return go;
	}

	/**
	 * Starts the waits in the store (subscribing, watching) only once the returned future
	 * completes; {@link #waiting} still counts them down when they are asked for. A test
	 * acts between a refused attempt and its wait.
	 */
	public CompletableFuture<Void> holdBackWaits() {
		CompletableFuture<Void> go = new CompletableFuture<>();
		this.waitsGo = go;
		return go;
	}

	/**
	 * Sends later releases, of one key or of several in one call, to the store only once
	 * the returned future completes: a test acts while a release is in flight.
	 */
	public CompletableFuture<Void> holdBackReleases() {
		CompletableFuture<Void> go = new CompletableFuture<>();
		this.releasesGo = go;
		return go;
	}

	/**
	 * Runs {@code action} on the releasing thread each time the store admits a claim by
	 * its holder's release, before the engine hears of the admission: a test acts in that
	 * window.
	 */
	public void onAdmission(Runnable action) {
		this.onAdmission = action;
	}

	/** Whether the store hands locks over; {@code true} only for such a delegate. */
	public boolean handsOver() {
		return this instanceof HandOverLockBackend;
	}

	CompletionStage<HandOverLockBackend.HandOver> countHandOver(HandOverLockBackend delegate, Claim holder, Claim next,
			Duration lease) {
		this.handOvers.incrementAndGet();
		this.handingOver.countDown();
		CountDownLatch go = this.handOversGo;
		CompletionStage<HandOverLockBackend.HandOver> handedOver = delegate.handOver(holder, next, lease);
		return (go.getCount() == 0) ? handedOver
				: handedOver.thenCompose((answer) -> CompletableFuture.supplyAsync(() -> awaitQuietly(go, answer)));
	}

	@Nullable AcquireResult countAdmission(HandOverLockBackend delegate, Claim holder, Claim next) {
		AcquireResult admitted = delegate.admittedByRelease(holder, next);
		if (admitted != null) {
			this.admissions.incrementAndGet();
			this.onAdmission.run();
		}
		return admitted;
	}

	private static <T> T awaitQuietly(CountDownLatch go, T result) {
		try {
			if (!go.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("A held-back hand-over was never let go");
			}
			return result;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Whether the store's locks have leases that the watchdog renews. */
	public boolean leasesExpire() {
		return !(this.delegate instanceof SessionLockBackend);
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		this.acquireAttempts.incrementAndGet();
		return this.delegate.tryAcquire(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		this.renewals.incrementAndGet();
		return this.delegate.renew(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		this.releases.incrementAndGet();
		CompletableFuture<Void> go = this.releasesGo;
		return go.isDone() ? send(claim) : go.thenCompose((sent) -> send(claim.on(null)));
	}

	private CompletionStage<Boolean> send(Claim claim) {
		if (this.failReleases) {
			return CompletableFuture
				.failedFuture(new UncheckedIOException(new IOException("connection reset, as a test asked for")));
		}
		return this.delegate.release(claim);
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		this.awaitingRelease.incrementAndGet();
		this.waiting.countDown();
		return this.waitsGo.thenCompose((go) -> this.delegate.awaitRelease(claim, lastAttempt, deadline));
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return this.delegate instanceof MultiKeyLockBackend multiKey && multiKey.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		this.acquireAllAttempts.incrementAndGet();
		return ((MultiKeyLockBackend) this.delegate).tryAcquireAll(claims, leases).whenComplete((result, failure) -> {
			if (failure != null) {
				this.acquireAllFailures.incrementAndGet();
			}
		});
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		this.releaseAllCalls.incrementAndGet();
		MultiKeyLockBackend delegate = (MultiKeyLockBackend) this.delegate;
		CompletableFuture<Void> go = this.releasesGo;
		return go.isDone() ? delegate.releaseAll(claims) : go
			.thenCompose((sent) -> delegate.releaseAll(claims.stream().map((claim) -> claim.on(null)).toList()));
	}

	@Override
	public void probe() {
		((LockStoreProbe) this.delegate).probe();
	}

	@Override
	public boolean deliversAnswersOn(Thread thread) {
		return this.delegate instanceof StoreClientThreads threads && threads.deliversAnswersOn(thread);
	}

	private static final class HandingOver extends CountingLockBackend implements HandOverLockBackend {

		private final HandOverLockBackend handOver;

		HandingOver(HandOverLockBackend handOver) {
			super(handOver);
			this.handOver = handOver;
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			return countHandOver(this.handOver, holder, next, lease);
		}

		@Override
		public @Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
			return countAdmission(this.handOver, holder, next);
		}

	}

	private static final class SessionHandingOver extends CountingLockBackend
			implements SessionLockBackend, HandOverLockBackend {

		private final HandOverLockBackend handOver;

		private final SessionLockBackend session;

		SessionHandingOver(HandOverLockBackend handOver, SessionLockBackend session) {
			super(handOver);
			this.handOver = handOver;
			this.session = session;
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			return countHandOver(this.handOver, holder, next, lease);
		}

		@Override
		public @Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
			return countAdmission(this.handOver, holder, next);
		}

		@Override
		public void addLossListener(LockLossListener listener) {
			this.session.addLossListener(listener);
		}

		@Override
		public void removeLossListener(LockLossListener listener) {
			this.session.removeLossListener(listener);
		}

	}

	private static final class Session extends CountingLockBackend implements SessionLockBackend {

		private final SessionLockBackend session;

		Session(SessionLockBackend session) {
			super(session);
			this.session = session;
		}

		@Override
		public void addLossListener(LockLossListener listener) {
			this.session.addLossListener(listener);
		}

		@Override
		public void removeLossListener(LockLossListener listener) {
			this.session.removeLossListener(listener);
		}

	}

}
