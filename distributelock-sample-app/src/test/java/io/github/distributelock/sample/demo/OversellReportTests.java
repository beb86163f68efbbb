package io.github.distributelock.sample.demo;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a round of the oversell demo is judged and told.
 */
class OversellReportTests {

	@Test
	void soldExactlyTheStock() {
		OversellReport report = new OversellReport(true, 10, 0, 10, 0, 0);
		assertThat(report.oversold()).isFalse();
		assertThat(report.consistent()).isTrue();
		assertThat(report.summary()).isEqualTo("lock on: stock=0 orders=10 (oversold: no)");
	}

	@Test
	void moreOrdersThanStockIsOversold() {
		OversellReport report = new OversellReport(false, 10, 0, 33, 0, 0);
		assertThat(report.oversold()).isTrue();
		assertThat(report.summary())
			.isEqualTo("lock off: stock=0 orders=33 (oversold: yes, 23 more orders than the 10 in stock)");
	}

	@Test
	void lostDecrementsWithoutOversellAreTold() {
		OversellReport report = new OversellReport(false, 10, 3, 9, 0, 0);
		assertThat(report.oversold()).isFalse();
		assertThat(report.consistent()).isFalse();
		assertThat(report.summary())
			.isEqualTo("lock off: stock=3 orders=9 (oversold: no, but stock + orders is 12, not 10)");
	}

	@Test
	void refusedAndFailedBuyersAreTold() {
		OversellReport report = new OversellReport(true, 10, 2, 8, 5, 1);
		assertThat(report.summary())
			.isEqualTo("lock on: stock=2 orders=8 (oversold: no) [5 refused by the lock, 1 failed]");
	}

}
