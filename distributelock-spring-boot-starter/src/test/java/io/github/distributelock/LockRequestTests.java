package io.github.distributelock;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The settings of a {@link LockRequest} for scheduled work, and their checks.
 */
class LockRequestTests {

	@Test
	void minimumHoldAndSkipAreOffUnlessAskedFor() {
		LockRequest request = LockRequest.of("report");
		assertThat(request.minimumHold()).isZero();
		assertThat(request.skipsWhenBusy()).isFalse();
		LockRequest scheduled = request.withMinimumHold(Duration.ofSeconds(1)).withSkipWhenBusy(true);
		assertThat(scheduled.minimumHold()).isEqualTo(Duration.ofSeconds(1));
		assertThat(scheduled.skipsWhenBusy()).isTrue();
		assertThat(scheduled).isNotEqualTo(request)
			.isEqualTo(LockRequest.of("report").withSkipWhenBusy(true).withMinimumHold(Duration.ofSeconds(1)))
			.hasSameHashCodeAs(LockRequest.of("report").withSkipWhenBusy(true).withMinimumHold(Duration.ofSeconds(1)));
		assertThat(scheduled.toString()).contains("minimumHold=PT1S").contains("skipWhenBusy");
		assertThat(scheduled.withName("job").withWaitTime(Duration.ofMillis(5)).withOwner("v").minimumHold())
			.isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aBlankNameIsRefusedAndNullNamesTheLockByItsKey() {
		for (String blank : new String[] { "", "  " }) {
			assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").withName(blank))
				.withMessageStartingWith("The lock name is blank (\"" + blank + "\")");
		}
		assertThat(LockRequest.of("k").withName("job").withName(null).name()).isNull();
	}

	@Test
	void aNegativeMinimumHoldOrOneLongerThanTheFixedLeaseIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("k").withMinimumHold(Duration.ofMillis(-1)))
			.withMessage("minimumHold must not be negative, was PT-0.001S; use 0 for no minimum hold");
		assertThatIllegalArgumentException().isThrownBy(
				() -> LockRequest.of("k").withLeaseTime(Duration.ofSeconds(10)).withMinimumHold(Duration.ofMinutes(1)))
			.withMessage("minimumHold (PT1M) must not be longer than the fixed leaseTime (PT10S), after which the "
					+ "store frees the lock anyway; lengthen the lease or shorten the minimum hold");
		assertThatIllegalArgumentException().isThrownBy(
				() -> LockRequest.of("k").withMinimumHold(Duration.ofMinutes(1)).withLeaseTime(Duration.ofSeconds(10)))
			.withMessageStartingWith("minimumHold (PT1M) must not be longer than the fixed leaseTime (PT10S)");
		assertThat(LockRequest.of("k").withMinimumHold(Duration.ofMinutes(1)).withLeaseTime(null).minimumHold())
			.isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void aLeaseLongerThanTheStoresCanCountIsRefusedNamingTheLongest() {
		// ChronoUnit.FOREVER's duration failed with "ArithmeticException: long overflow".
		Duration forever = ChronoUnit.FOREVER.getDuration();
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("k").withLeaseTime(forever))
			.withMessage("leaseTime must be at most Long.MAX_VALUE ms (PT2562047788015H12M55.807S), was " + forever
					+ "; pass null for a lease renewed by the watchdog");
		Duration longest = Duration.ofMillis(Long.MAX_VALUE);
		assertThat(LockRequest.of("k").withLeaseTime(longest).leaseTime()).isEqualTo(longest);
	}

	@Test
	void aNullPartOfAMultiKeyRequestIsRefusedNamingItsPlace() {
		// It failed with a NullPointerException from inside LockRequest.all.
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.all(LockRequest.of("a"), null))
			.withMessage("Part 2 of a multi-key request is null; pass LockRequest.of(key) for each key to take");
	}

	@Test
	void aKindSetOnTheCombinedRequestIsRefusedSayingToSetItOnEachPart() {
		// Accepted before, and ignored: each part is taken with its own kind, so the
		// keys were locked exclusively.
		LockRequest both = LockRequest.all(LockRequest.of("a"), LockRequest.of("b"));
		String fix = "; each key of a multi-key request is taken with its own kind: set it on the parts, such as "
				+ "LockRequest.all(LockRequest.of(\"a\").withMode(LockMode.READ), ...)";
		assertThatIllegalArgumentException().isThrownBy(() -> both.withMode(LockMode.READ))
			.withMessage("The multi-key request a,b cannot take mode READ" + fix);
		assertThatIllegalArgumentException().isThrownBy(() -> both.withFair(true))
			.withMessage("The multi-key request a,b cannot take fair" + fix);
		assertThatIllegalArgumentException().isThrownBy(() -> both.withPermits(2))
			.withMessage("The multi-key request a,b cannot take permits 2" + fix);
		assertThat(both.withMode(LockMode.EXCLUSIVE).withFair(false)).isEqualTo(both);
	}

	@Test
	void aPartOfAMultiKeyRequestWithAnOwnerOfItsOwnIsRefusedAndTheCombinedRequestCarriesIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.all(LockRequest.of("a").withOwner("owner-1"), LockRequest.of("b")))
			.withMessageContaining("owner value of its own")
			.withMessageContaining("withOwner on LockRequest.all");
		assertThat(LockRequest.all(LockRequest.of("a"), LockRequest.of("b")).withOwner("owner-1").owner())
			.isEqualTo("owner-1");
	}

}
