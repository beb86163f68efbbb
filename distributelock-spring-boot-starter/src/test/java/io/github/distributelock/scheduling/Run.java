package io.github.distributelock.scheduling;

/**
 * One run of the {@link ReportJob}: the instance, the tick of its schedule it ran for,
 * and when it started and ended on the wall clock, which the instances of one machine
 * share.
 *
 * @param instance the instance that ran it
 * @param tick the number of the tick, the same on every instance whatever its clock
 * @param startMicros when it started, in microseconds since the epoch
 * @param endMicros when it ended, in microseconds since the epoch
 */
public record Run(String instance, long tick, long startMicros, long endMicros) {

	/** The run as one line of a worker's output. */
	public String format() {
		return "RAN " + this.instance + " " + this.tick + " " + this.startMicros + " " + this.endMicros;
	}

	/** A run from a line that {@link #format()} wrote. */
	public static Run parse(String line) {
		String[] parts = line.split(" ");
		if (parts.length != 5 || !parts[0].equals("RAN")) {
			throw new IllegalArgumentException("Not a run: '" + line + "'");
		}
		return new Run(parts[1], Long.parseLong(parts[2]), Long.parseLong(parts[3]), Long.parseLong(parts[4]));
	}

}
