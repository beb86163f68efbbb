package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;

/**
 * The page's JDBC rows, when they ran: throughput on one database and on two shards, and
 * the hand-off across JVMs on PostgreSQL with release notifications and with polling.
 */
final class JdbcTables {

	private JdbcTables() {
	}

	static void write(Results results, Markdown page) {
		if (results.jdbcShards == null && results.jdbcHandOff == null) {
			return;
		}
		page.line("## JDBC: shards and wake-ups");
		page.line();
		if (results.jdbcShards != null) {
			shards(results.jdbcShards, page);
		}
		if (results.jdbcHandOff != null) {
			handOff(results.jdbcHandOff, page);
		}
	}

	private static void shards(JsonNode part, Markdown page) {
		page.line("16 threads in one fresh JVM per round lock and unlock distinct keys, on the lock table in the run's "
				+ "PostgreSQL (a `JdbcLockBackend`) and spread over it and a second PostgreSQL server started alike (a "
				+ "`ShardedJdbcLockBackend`), one after the other in each round, the first alternating; a pool of 16 "
				+ "connections per database. Acquisitions per second:");
		page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode result : part.path("results")) {
			for (JsonNode round : result.path("rounds")) {
				double one = Results.number(round.path("oneDatabasePerSecond"));
				double two = Results.number(round.path("twoDatabasesPerSecond"));
				rows.add(new String[] { Integer.toString(round.path("round").asInt()), String.format("%,.0f", one),
						String.format("%,.0f", two), String.format("%.2f", two / one),
						round.path("shardedFirst").asBoolean() ? "two" : "one", round.path("loadBefore").asString() });
			}
		}
		page.table(List.of("round", "one database", "two shards", "two / one", "measured first", "load before"), rows);
	}

	private static void handOff(JsonNode part, Markdown page) {
		page.line("On PostgreSQL, one JVM holds the key a random 10 to 50 ms after another JVM started waiting for "
				+ "it, then releases it; the hand-off is the time from just before the release to the waiter's "
				+ "acquire returning. Both JVMs with `release-notifications` on (the waiter woken by `NOTIFY`) or "
				+ "off (the waiter polls with back-off from 5 to 200 ms), taking turns in each round:");
		page.line();
		List<String[]> rows = new ArrayList<>();
		for (JsonNode result : part.path("results")) {
			for (JsonNode round : result.path("rounds")) {
				rows.add(
						new String[] { result.path("variant").asString(), Integer.toString(round.path("round").asInt()),
								Integer.toString(round.path("samples").asInt()), millis(round.path("p50Micros")),
								millis(round.path("p90Micros")), millis(round.path("p99Micros")),
								Long.toString(round.path("timeouts").asLong()), round.path("loadBefore").asString() });
			}
		}
		page.table(List.of("waiter woken by", "round", "hand-offs", "p50 ms", "p90 ms", "p99 ms", "timeouts",
				"load before"), rows);
	}

	private static String millis(JsonNode micros) {
		return String.format("%.2f", Results.number(micros) / 1000);
	}

}
