package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletionException;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockRequest;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockOperations} with one thread shutting the lock service down among the others,
 * run with no sequential specification: the shutdown is not one atomic step, so some of
 * its histories have no sequential explanation (they are in
 * {@link LocalLocksLincheckTests}). What is checked in every interleaving: no call hangs
 * or fails other than with the shutdown's {@link DistributeLockException}; no acquisition
 * that begins after the shutdown has returned succeeds; and whenever no call runs, the
 * store and the key table agree and the table keeps no entry for a key nobody uses (so
 * the shutdown released what was held, and later closes did no harm).
 */
public class LockScenarioWithShutdown extends LockOperations {

	private volatile boolean shutDown;

	private volatile @Nullable String violation;

	public LockScenarioWithShutdown() throws InterruptedException, ReflectiveOperationException {
		// The refusals of a closed lock service, and the exceptions they complete futures
		// with, are first met here on one thread, not by the scenario's threads.
		DefaultDistributeLock closed = new DefaultDistributeLock(new InstantLockBackend(), Duration.ofHours(1), false,
				LockEventListener.NONE, new InlineScheduler());
		closed.close();
		acquireAsyncRefused(closed);
		try {
			closed.tryAcquire(LockRequest.of("warm-up"));
		}
		catch (DistributeLockException ex) {
			// Refused, as expected.
		}
	}

	private static void acquireAsyncRefused(DefaultDistributeLock closed) {
		try {
			closed.tryAcquireAsync(LockRequest.of("warm-up")).join();
		}
		catch (CompletionException ex) {
			// Refused, as expected.
		}
	}

	@Operation
	@Override
	public Outcome acquire(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key)
			throws InterruptedException {
		boolean after = this.shutDown;
		try {
			return checked(after, super.acquire(thread, key));
		}
		catch (DistributeLockException ex) {
			return Outcome.NOT_ACQUIRED;
		}
	}

	@Operation
	@Override
	public Outcome acquireAsync(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		boolean after = this.shutDown;
		try {
			return checked(after, super.acquireAsync(thread, key));
		}
		catch (DistributeLockException ex) {
			return Outcome.NOT_ACQUIRED;
		}
	}

	private Outcome checked(boolean afterShutdown, Outcome outcome) {
		if (afterShutdown && outcome == Outcome.ACQUIRED) {
			this.violation = "a lock was acquired after the shutdown had returned";
		}
		return outcome;
	}

	@Operation(runOnce = true)
	public void shutdown() {
		this.lock.close();
		this.shutDown = true;
	}

	@Override
	protected void scenarioInvariants() {
		if (this.violation != null) {
			throw new IllegalStateException(this.violation);
		}
	}

}
