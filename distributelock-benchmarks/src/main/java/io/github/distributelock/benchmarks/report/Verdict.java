package io.github.distributelock.benchmarks.report;

import java.util.List;

/**
 * A target judged on every round of a run, not only on the median: a target met in the
 * median but missed in one round is not met.
 *
 * @param median whether the median figures meet it
 * @param rounds whether each round meets it, in round order; empty for a figure measured
 * once
 */
record Verdict(boolean median, List<Boolean> rounds) {

	/** Whether the target holds: in every round, or for a single figure, in it. */
	boolean met() {
		return this.rounds.isEmpty() ? this.median : !this.rounds.contains(false);
	}

	/** The verdict as the page gives it. */
	String text() {
		int total = this.rounds.size();
		long met = this.rounds.stream().filter(Boolean::booleanValue).count();
		if (total == 0) {
			return this.median ? "met (one figure, no rounds)" : "**missed**";
		}
		if (met == total) {
			return "met in every round (" + met + " of " + total + ")";
		}
		if (this.median) {
			return "**not met**: met in the median only, in " + met + " of " + total + " rounds";
		}
		return "**missed**: met in " + met + " of " + total + " rounds";
	}

}
