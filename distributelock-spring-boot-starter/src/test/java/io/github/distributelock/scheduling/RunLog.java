package io.github.distributelock.scheduling;

/**
 * Told of every run of the {@link ReportJob}.
 */
@FunctionalInterface
public interface RunLog {

	void ran(Run run);

}
