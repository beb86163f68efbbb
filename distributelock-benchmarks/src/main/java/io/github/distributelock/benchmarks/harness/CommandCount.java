package io.github.distributelock.benchmarks.harness;

/**
 * What one uncontended lock and unlock cost a library at its store, per cycle.
 *
 * @param library the library
 * @param clientRequests commands, requests or statements the client sent: its round trips
 * @param scriptCommands Redis commands run inside its scripts
 * @param allCommands every command the store executed ({@code INFO commandstats} for
 * Redis)
 * @param fsyncs ZooKeeper transaction log fsyncs, {@code NaN} elsewhere
 * @param serverMicros Redis server time of the client's commands, from
 * {@code INFO commandstats}, {@code NaN} elsewhere
 * @param detail the commands by name
 * @param meanMicros the mean time of one cycle while counting
 */
record CommandCount(String library, double clientRequests, double scriptCommands, double allCommands, double fsyncs,
		double serverMicros, String detail, double meanMicros) {

}
