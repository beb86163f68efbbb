package io.github.distributelock.fault;

/**
 * One critical section run by a worker: the fencing token it held, and when it started
 * and ended on the machine's monotonic clock ({@link System#nanoTime()} is
 * {@code CLOCK_MONOTONIC} on Linux, one clock for every process of the machine).
 *
 * @param worker the worker that ran it
 * @param fencingToken the token of the acquisition
 * @param startNanos after the lock was acquired
 * @param endNanos before the lock was released
 * @param counterRead the shared counter's value read inside the section
 */
record CriticalSection(String worker, long fencingToken, long startNanos, long endNanos, long counterRead) {

	static CriticalSection parse(String line) {
		String[] parts = line.split(",");
		return new CriticalSection(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]),
				Long.parseLong(parts[3]), Long.parseLong(parts[4]));
	}

	String format() {
		return this.worker + "," + this.fencingToken + "," + this.startNanos + "," + this.endNanos + ","
				+ this.counterRead;
	}

}
