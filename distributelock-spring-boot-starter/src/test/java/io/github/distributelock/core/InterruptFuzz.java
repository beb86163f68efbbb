package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers that take and release one key in a loop while interrupts land anywhere in their
 * calls (the store calls, the waits and the hand-overs included): in each round every
 * caller makes its calls, and one of them, picked at random, is cancelled with an
 * interrupt after a random pause of up to 3 ms. What the calls saw is counted.
 *
 * @param acquired how many calls held the key
 * @param interrupted how many calls ended with an {@link InterruptedException}
 * @param exceeded how many times more callers than {@code most} held the key at once
 * @param unexpected the first failure that was neither
 */
record InterruptFuzz(int acquired, int interrupted, int exceeded, @Nullable Throwable unexpected) {

	/** How long a round's calls may take to end. */
	private static final long CALL_BOUND_SECONDS = 60;

	/**
	 * Runs rounds until {@code rounds} ran or {@code within} passed, then shuts
	 * {@code pool} down and waits for it.
	 * @param pool runs the callers, one task per caller and round
	 * @param callers the instance each caller calls, one entry per caller
	 * @param request what each call asks for, with its wait time
	 * @param most how many callers may hold the key at once
	 * @param callsPerRound how many calls each caller makes in a round
	 */
	static InterruptFuzz run(ExecutorService pool, List<DefaultDistributeLock> callers, LockRequest request, int most,
			int callsPerRound, int rounds, Duration within) throws Exception {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger exceeded = new AtomicInteger();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger interrupted = new AtomicInteger();
		AtomicReference<Throwable> unexpected = new AtomicReference<>();
		long end = System.nanoTime() + within.toNanos();
		try {
			for (int round = 0; round < rounds && System.nanoTime() - end < 0; round++) {
				List<Future<?>> calls = new ArrayList<>();
				for (DefaultDistributeLock lock : callers) {
					calls.add(pool.submit(() -> {
						for (int i = 0; i < callsPerRound; i++) {
							try {
								Optional<LockHandle> handle = lock.tryAcquire(request);
								if (handle.isPresent()) {
									try (LockHandle held = handle.get()) {
										if (inside.incrementAndGet() > most) {
											exceeded.incrementAndGet();
										}
										acquired.incrementAndGet();
										inside.decrementAndGet();
									}
								}
							}
							catch (InterruptedException ex) {
								interrupted.incrementAndGet();
								return null;
							}
							catch (Throwable ex) {
								unexpected.compareAndSet(null, ex);
								return null;
							}
						}
						return null;
					}));
				}
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(3_000_000));
				calls.get(ThreadLocalRandom.current().nextInt(calls.size())).cancel(true);
				for (Future<?> call : calls) {
					try {
						call.get(CALL_BOUND_SECONDS, TimeUnit.SECONDS);
					}
					catch (CancellationException ex) {
						// The interrupted call: it ends on its own, and the caller checks
						// what it left.
					}
				}
			}
		}
		finally {
			pool.shutdown();
			assertThat(pool.awaitTermination(CALL_BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
		return new InterruptFuzz(acquired.get(), interrupted.get(), exceeded.get(), unexpected.get());
	}

}
