package io.github.distributelock.sample.demo;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The oversell demo's round with the lock on: two instances sharing one database and one
 * Redis never sell more than the stock.
 * <p>
 * The round with the lock off is a race: it oversells on almost every run, but not by
 * construction, so it is not asserted here.
 */
class OversellDemoTests {

	@Test
	void twoInstancesNeverOversellWithTheLockOn(@TempDir Path databaseDirectory) throws Exception {
		OversellReport report = OversellDemo.run(true, 10, 60, databaseDirectory);
		assertThat(report.oversold()).isFalse();
		assertThat(report.stock()).isZero();
		assertThat(report.orders()).isEqualTo(10);
		assertThat(report.refusedByLock()).isZero();
		assertThat(report.failed()).isZero();
		assertThat(report.summary()).isEqualTo("lock on: stock=0 orders=10 (oversold: no)");
		assertThat(databaseDirectory.resolve("shop.mv.db")).isRegularFile();
	}

}
