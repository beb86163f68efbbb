package io.github.distributelock.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads every worker's critical sections for one key and lists what breaks mutual
 * exclusion: two sections that overlap in time, an increment that was lost, or a fencing
 * token that does not grow with acquisition order.
 */
final class MutualExclusionChecker {

	private final List<CriticalSection> sections;

	private MutualExclusionChecker(List<CriticalSection> sections) {
		this.sections = sections.stream().sorted(Comparator.comparingLong(CriticalSection::startNanos)).toList();
	}

	static MutualExclusionChecker read(List<Path> logs) {
		List<CriticalSection> sections = new ArrayList<>();
		for (Path log : logs) {
			try (Stream<String> lines = Files.lines(log)) {
				lines.filter((line) -> !line.isBlank()).map(CriticalSection::parse).forEach(sections::add);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return new MutualExclusionChecker(sections);
	}

	int size() {
		return this.sections.size();
	}

	/**
	 * Pairs of consecutive sections (by start) where the later began before the earlier
	 * ended.
	 */
	List<String> overlaps() {
		List<String> overlaps = new ArrayList<>();
		for (int i = 1; i < this.sections.size(); i++) {
			CriticalSection previous = this.sections.get(i - 1);
			CriticalSection current = this.sections.get(i);
			if (current.startNanos() < previous.endNanos()) {
				overlaps.add(previous + " overlaps " + current);
			}
		}
		return overlaps;
	}

	/** Sections whose counter read is not one more than the previous section's. */
	List<String> lostIncrements() {
		List<String> lost = new ArrayList<>();
		for (int i = 0; i < this.sections.size(); i++) {
			if (this.sections.get(i).counterRead() != i) {
				lost.add("section " + i + " read " + this.sections.get(i).counterRead() + ": " + this.sections.get(i));
			}
		}
		return lost;
	}

	/** How many different fencing tokens the sections had. */
	long distinctTokens() {
		return this.sections.stream().mapToLong(CriticalSection::fencingToken).distinct().count();
	}

	/** Sections whose token is not greater than the token of the section before them. */
	List<String> tokensOutOfOrder() {
		List<String> outOfOrder = new ArrayList<>();
		for (int i = 1; i < this.sections.size(); i++) {
			if (this.sections.get(i).fencingToken() <= this.sections.get(i - 1).fencingToken()) {
				outOfOrder.add(this.sections.get(i - 1) + " then " + this.sections.get(i));
			}
		}
		return outOfOrder;
	}

	/**
	 * The time between each section's end and the next section's start, in the order the
	 * sections ran: where the lock went unused.
	 */
	List<Gap> gaps() {
		List<Gap> gaps = new ArrayList<>();
		for (int i = 1; i < this.sections.size(); i++) {
			gaps.add(new Gap(this.sections.get(i - 1), this.sections.get(i)));
		}
		return gaps;
	}

	/**
	 * The time between two consecutive critical sections.
	 *
	 * @param before the section that ended first
	 * @param after the next section to start
	 */
	record Gap(CriticalSection before, CriticalSection after) {

		long nanos() {
			return this.after.startNanos() - this.before.endNanos();
		}

	}

}
