package io.github.distributelock.benchmarks.library;

/**
 * What a measured library runs with, for the page's "Peer configurations": how its client
 * is built, the settings that matter for a lock, and the calls the harnesses make.
 *
 * @param product the product, as the page's versions table names it
 * @param client how the client is built
 * @param settings the settings that matter for a lock, with their values
 * @param calls the lock and unlock calls the harnesses make
 */
public record LibraryConfiguration(String product, String client, String settings, String calls) {

}
