package io.github.distributelock.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runs of the {@link ReportJob} on every instance, recorded once the test starts
 * recording (when every instance is up), and what they must show.
 */
public final class Runs implements RunLog {

	/**
	 * How much later a run may start than the lock it runs under was taken (the call
	 * through the proxy, a busy machine): the minimum hold is counted from the lock.
	 */
	private static final long START_TOLERANCE_MICROS = 200_000;

	private final List<Run> runs = new CopyOnWriteArrayList<>();

	private volatile boolean recording;

	public void startRecording() {
		this.recording = true;
	}

	@Override
	public void ran(Run run) {
		if (this.recording) {
			this.runs.add(run);
		}
	}

	public int count() {
		return this.runs.size();
	}

	public List<Run> list() {
		return List.copyOf(this.runs);
	}

	/**
	 * Asserts that no tick ran twice, whatever instance ran it, that no two runs
	 * overlapped, and that each run started at least the minimum hold after the one
	 * before it.
	 */
	public static void assertEveryTickRanOnce(List<Run> runs) {
		assertThat(runs).as("runs %s", runs).extracting(Run::tick).doesNotHaveDuplicates();
		List<Run> byStart = new ArrayList<>(runs);
		byStart.sort(Comparator.comparingLong(Run::startMicros));
		for (int i = 1; i < byStart.size(); i++) {
			Run previous = byStart.get(i - 1);
			Run next = byStart.get(i);
			assertThat(next.startMicros()).as("%s starts after %s ended", next, previous)
				.isGreaterThanOrEqualTo(previous.endMicros());
			assertThat(next.startMicros() - previous.startMicros())
				.as("%s starts at least the minimum hold after %s", next, previous)
				.isGreaterThanOrEqualTo(ReportJob.MIN_HOLD_MILLIS * 1000L - START_TOLERANCE_MICROS);
		}
	}

}
