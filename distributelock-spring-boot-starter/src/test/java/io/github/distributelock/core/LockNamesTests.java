package io.github.distributelock.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The name a lock taken by hand gets for metrics never carries the values in its key.
 */
class LockNamesTests {

	@Test
	void nameIsTheKeysLeadingLetters() {
		assertThat(LockNames.fromKey("account:42")).isEqualTo("account");
		assertThat(LockNames.fromKey("order.addOder_42_abc")).isEqualTo("order");
		assertThat(LockNames.fromKey("stock-7")).isEqualTo("stock");
		assertThat(LockNames.fromKey("user/jdoe@example.com")).isEqualTo("user");
		assertThat(LockNames.fromKey("nightlyReport")).isEqualTo("nightlyReport");
		assertThat(LockNames.fromKey("订单_42")).isEqualTo("订单");
	}

	@Test
	void keyThatStartsWithoutALetterIsUnnamed() {
		assertThat(LockNames.fromKey("42")).isEqualTo(LockNames.UNNAMED);
		assertThat(LockNames.fromKey("{tag}x")).isEqualTo(LockNames.UNNAMED);
	}

	@Test
	void nameIsCappedInLength() {
		assertThat(LockNames.fromKey("a".repeat(200))).hasSize(LockNames.MAX_LENGTH);
	}

}
