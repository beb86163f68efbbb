package io.github.distributelock.benchmarks.harness;

/**
 * Many non-blocking waiters on one Redis key in one round: each waits for the key while
 * one holder keeps it, then all are let go and each holds it once, alone.
 *
 * @param round the round, from 1
 * @param api {@code tryAcquireAsync} ({@code DistributeLock}) or {@code withLockMono}
 * ({@code ReactiveDistributeLock})
 * @param waiters how many waited at once
 * @param threadsBefore the JVM's live threads before the waiters started
 * @param threadsWhileWaiting its live threads once all of them were waiting
 * @param peakThreads the most live threads from the waiters' start until all were served
 * @param heapBeforeBytes heap in use before the waiters started, after a full GC
 * @param heapWhileWaitingBytes heap in use while all of them waited, after a full GC
 * @param servedMillis from the holder's release until the last waiter released
 * @param servedEarly waiters done before the holder released: must be 0
 * @param overlaps waiters that held the key together with another: must be 0
 * @param loadBefore the load average when the round's JVM started
 * @param loadAfter the load average when it ended
 */
public record WaitersRound(int round, String api, int waiters, int threadsBefore, int threadsWhileWaiting,
		int peakThreads, long heapBeforeBytes, long heapWhileWaitingBytes, long servedMillis, long servedEarly,
		long overlaps, String loadBefore, String loadAfter) {

	WaitersRound withLoad(String before, String after) {
		return new WaitersRound(this.round, this.api, this.waiters, this.threadsBefore, this.threadsWhileWaiting,
				this.peakThreads, this.heapBeforeBytes, this.heapWhileWaitingBytes, this.servedMillis, this.servedEarly,
				this.overlaps, before, after);
	}

}
