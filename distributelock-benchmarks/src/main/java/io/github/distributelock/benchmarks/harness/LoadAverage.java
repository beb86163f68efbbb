package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load average over 1, 5 and 15 minutes, from {@code /proc/loadavg}: the
 * page gives it for every round, since the machine is shared and a busy moment weighs on
 * some libraries more than on others.
 *
 * @param one the last minute
 * @param five the last 5 minutes
 * @param fifteen the last 15 minutes
 */
public record LoadAverage(double one, double five, double fifteen) {

	private static final Path LOADAVG = Path.of("/proc/loadavg");

	/**
	 * The load average now.
	 * @return it, or {@code NaN}s where the system does not tell
	 */
	public static LoadAverage now() {
		try {
			String[] parts = Files.readString(LOADAVG).trim().split(" ");
			return new LoadAverage(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]),
					Double.parseDouble(parts[2]));
		}
		catch (IOException | RuntimeException ex) {
			return new LoadAverage(Double.NaN, Double.NaN, Double.NaN);
		}
	}

	@Override
	public String toString() {
		return String.format("%.2f %.2f %.2f", this.one, this.five, this.fifteen);
	}

}
