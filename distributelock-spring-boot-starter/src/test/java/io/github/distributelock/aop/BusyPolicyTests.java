package io.github.distributelock.aop;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.Lockable;
import io.github.distributelock.Lockable.OnBusy;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.SchedulingConfiguration;
import org.springframework.scheduling.config.ScheduledTaskHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Whether a {@link Lockable @Lockable} method skips or fails when its lock is busy, what
 * a skipped call returns, and the minimum hold, as decided and checked at startup.
 */
class BusyPolicyTests {

	private final LockKeyResolver resolver = new LockKeyResolver("_", "Please do not submit twice|2101");

	@Test
	void scheduledMethodsSkipByDefaultAndOthersFail() {
		assertThat(definition(Jobs.class, "scheduled").skipsWhenBusy()).isTrue();
		assertThat(definition(Jobs.class, "metaScheduled").skipsWhenBusy()).isTrue();
		assertThat(definition(Jobs.class, "twiceScheduled").skipsWhenBusy()).isTrue();
		assertThat(definition(Jobs.class, "scheduledButFailing").skipsWhenBusy()).isFalse();
		assertThat(definition(Jobs.class, "plain").skipsWhenBusy()).isFalse();
		assertThat(definition(Jobs.class, "skipping").skipsWhenBusy()).isTrue();
	}

	/**
	 * Spring schedules a method only by the {@code @Scheduled} it declares (or a default
	 * method of an interface declares), not by one on an interface or superclass method
	 * it overrides: such a method is not scheduled, and fails when busy rather than
	 * skipping the call of whoever calls it.
	 */
	@Test
	void aMethodOverridingAScheduledMethodIsNotScheduledAndFailsWhenBusy() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(SchedulingConfiguration.class);
			context.registerBean(OverridingJobs.class);
			context.refresh();
			assertThat(context.getBean(ScheduledTaskHolder.class).getScheduledTasks())
				.extracting((task) -> task.getTask().toString())
				.containsExactly(OverridingJobs.class.getName() + ".declaredScheduled");
		}
		assertThat(definition(OverridingJobs.class, "declaredScheduled").skipsWhenBusy()).isTrue();
		assertThat(definition(OverridingJobs.class, "inheritedScheduled").skipsWhenBusy()).isFalse();
		assertThat(definition(OverridingJobs.class, "superclassScheduled").skipsWhenBusy()).isFalse();
	}

	@Test
	void aSkippedCallReturnsTheEmptyValueOfItsType() {
		assertThat(definition(Jobs.class, "scheduled").busyPolicy().busy("k")).isNull();
		assertThat(definition(Jobs.class, "skipping").busyPolicy().busy("k")).isNull();
		assertThat(definition(Jobs.class, "optional").busyPolicy().busy("k")).isEqualTo(Optional.empty());
		assertThat(definition(Jobs.class, "optionalInt").busyPolicy().busy("k")).isEqualTo(OptionalInt.empty());
		assertThat(definition(Jobs.class, "future").busyPolicy().busy("k"))
			.isInstanceOfSatisfying(CompletableFuture.class, (future) -> assertThat(future).isCompletedWithValue(null));
	}

	@Test
	void aFailingCallThrowsTheAnnotationsFailure() {
		assertThatExceptionOfType(LockFailedException.class)
			.isThrownBy(() -> definition(Jobs.class, "plain").busyPolicy().busy("plain_1"))
			.satisfies((ex) -> {
				assertThat(ex.getMessage()).isEqualTo("Please do not submit twice");
				assertThat(ex.getCode()).isEqualTo("2101");
				assertThat(ex.getLockKey()).isEqualTo("plain_1");
			});
	}

	@Test
	void aCallEndedByTheShutdownOfTheLockServiceSkipsQuietlyOrFailsWithTheShutdown() {
		LockServiceShutdownException shutdown = new LockServiceShutdownException("k", "redis",
				"the application context is closing", null);
		assertThat(definition(Jobs.class, "scheduled").busyPolicy().shuttingDown("k", shutdown)).isNull();
		assertThat(definition(Jobs.class, "optional").busyPolicy().shuttingDown("k", shutdown))
			.isEqualTo(Optional.empty());
		assertThatExceptionOfType(LockServiceShutdownException.class)
			.isThrownBy(() -> definition(Jobs.class, "plain").busyPolicy().shuttingDown("k", shutdown))
			.isSameAs(shutdown);
	}

	@Test
	void anInterruptedCallSkipsOrFailsAndKeepsTheInterruptFlag() {
		InterruptedException interrupt = new InterruptedException();
		try {
			assertThat(definition(Jobs.class, "scheduled").busyPolicy().interrupted("k", interrupt)).isNull();
			assertThat(Thread.interrupted()).isTrue();
			assertThatExceptionOfType(LockFailedException.class)
				.isThrownBy(() -> definition(Jobs.class, "plain").busyPolicy().interrupted("k", interrupt))
				.withCause(interrupt);
			assertThat(Thread.interrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void theRequestCarriesTheMinimumHoldTheLeaseAndTheSkip() {
		LockRequest request = definition(Jobs.class, "scheduled").request("report");
		assertThat(request.minimumHold()).isEqualTo(Duration.ofMillis(750));
		assertThat(request.leaseTime()).isEqualTo(Duration.ofSeconds(60));
		assertThat(request.skipsWhenBusy()).isTrue();
		assertThat(request.name()).isEqualTo("report");
		LockRequest plain = definition(Jobs.class, "plain").request("plain_1");
		assertThat(plain.minimumHold()).isZero();
		assertThat(plain.skipsWhenBusy()).isFalse();
	}

	@Test
	void aSkippedCallThatCannotReturnNothingFailsAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "skippingInt"))
			.satisfies((ex) -> {
				assertThat(ex.getProblem())
					.isEqualTo("onBusy is SKIP, but it returns int, which a skipped call has no value for");
				assertThat(ex.getFix()).isEqualTo("Return void, a wrapper such as Integer (null when skipped) or an "
						+ "Optional (empty when skipped), or set onBusy = Lockable.OnBusy.FAIL to throw "
						+ "LockFailedException instead");
				assertThat(ex.getMessage()).startsWith("@Lockable on " + BadJobs.class.getName() + ".skippingInt");
			});
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "scheduledBoolean"))
			.satisfies((ex) -> assertThat(ex.getProblem()).isEqualTo("it is @Scheduled, so it skips when busy, but "
					+ "it returns boolean, which a skipped call has no value for"))
			.withMessageContaining("Boolean (null when skipped)");
	}

	/**
	 * A skipped subscription ends empty: RxJava's {@code Single} turns that into a
	 * {@code NoSuchElementException} at every busy call, so it is refused like a
	 * primitive; types that may be empty skip.
	 */
	@Test
	void aSkippedCallOfAReactiveTypeThatMustEmitAValueFailsAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "skippingSingle"))
			.satisfies((ex) -> {
				assertThat(ex.getProblem())
					.isEqualTo("onBusy is SKIP, but it returns io.reactivex.rxjava3.core.Single, "
							+ "which must emit a value and cannot end empty when skipped");
				assertThat(ex.getFix()).isEqualTo("Return a type that may be empty (a Maybe, Mono or Flux, which "
						+ "completes empty when skipped), or set onBusy = Lockable.OnBusy.FAIL to fail with "
						+ "LockFailedException instead");
			});
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "scheduledSingle"))
			.satisfies((ex) -> assertThat(ex.getProblem()).startsWith("it is @Scheduled, so it skips when busy"));
		assertThat(definition(Jobs.class, "skippingMaybe").skipsWhenBusy()).isTrue();
		assertThat(definition(Jobs.class, "skippingCompletable").skipsWhenBusy()).isTrue();
		assertThat(definition(Jobs.class, "failingSingle").skipsWhenBusy()).isFalse();
	}

	@Test
	void aNegativeMinimumHoldOrOneLongerThanTheFixedLeaseFailsAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "negativeMinimum"))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).isEqualTo("minHoldMs is -1");
				assertThat(ex.getFix()).isEqualTo("Use 0 (the default) for no minimum hold, or a positive time in "
						+ "milliseconds, a little shorter than the gap between two runs");
			});
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadJobs.class, "minimumBeyondLease"))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).isEqualTo("minHoldMs (60000) is longer than the fixed lease timeoutMs "
						+ "(10000), after which the store frees the lock anyway");
				assertThat(ex.getFix()).isEqualTo("Set timeoutMs to at least minHoldMs, or to -1 for a lease "
						+ "renewed while the method runs, or shorten minHoldMs");
			});
	}

	@Test
	void aMinimumHoldWithALeaseRenewedWhileTheMethodRunsHasNoUpperBound() {
		assertThat(definition(Jobs.class, "longMinimum").minimumHold()).isEqualTo(Duration.ofHours(1));
	}

	private LockDefinition definition(Class<?> type, String name) {
		Method method = Arrays.stream(type.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		LockDefinition definition = this.resolver.definition(method, type);
		assertThat(definition).isNotNull();
		return definition;
	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Scheduled(cron = "0 0 * * * *")
	@interface Hourly {

	}

	interface ScheduledJob {

		@Scheduled(fixedDelay = 60_000)
		void inheritedScheduled();

	}

	static class ScheduledBase {

		@Scheduled(fixedDelay = 60_000)
		public void superclassScheduled() {
		}

	}

	static class OverridingJobs extends ScheduledBase implements ScheduledJob {

		@Scheduled(fixedDelay = 60_000, initialDelay = 60_000)
		@Lockable(key = "declared")
		public void declaredScheduled() {
		}

		@Override
		@Lockable(key = "inherited")
		public void inheritedScheduled() {
		}

		@Override
		@Lockable(key = "superclass")
		public void superclassScheduled() {
		}

	}

	static class Jobs implements ScheduledJob {

		@Lockable(key = "maybe", onBusy = OnBusy.SKIP)
		Maybe<String> skippingMaybe() {
			return Maybe.just("maybe");
		}

		@Lockable(key = "completable", onBusy = OnBusy.SKIP)
		Completable skippingCompletable() {
			return Completable.complete();
		}

		@Lockable(key = "single")
		Single<String> failingSingle() {
			return Single.just("single");
		}

		@Scheduled(cron = "*/2 * * * * *")
		@Lockable(key = "report", minHoldMs = 750, timeoutMs = 60_000)
		void scheduled() {
		}

		@Hourly
		@Lockable(key = "meta")
		void metaScheduled() {
		}

		@Scheduled(cron = "0 0 1 * * *")
		@Scheduled(cron = "0 0 13 * * *")
		@Lockable(key = "twice")
		void twiceScheduled() {
		}

		@Override
		@Lockable(key = "inherited")
		public void inheritedScheduled() {
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "failing", onBusy = OnBusy.FAIL)
		void scheduledButFailing() {
		}

		@Lockable(key = "plain")
		void plain() {
		}

		@Lockable(key = "skipping", onBusy = OnBusy.SKIP)
		String skipping() {
			return "ran";
		}

		@Lockable(key = "optional", onBusy = OnBusy.SKIP)
		Optional<String> optional() {
			return Optional.of("ran");
		}

		@Lockable(key = "optionalInt", onBusy = OnBusy.SKIP)
		OptionalInt optionalInt() {
			return OptionalInt.of(1);
		}

		@Lockable(key = "future", onBusy = OnBusy.SKIP)
		CompletableFuture<String> future() {
			return CompletableFuture.completedFuture("ran");
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "long", minHoldMs = 3_600_000)
		void longMinimum() {
		}

	}

	static class BadJobs {

		@Lockable(key = "int", onBusy = OnBusy.SKIP)
		int skippingInt() {
			return 1;
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "boolean")
		boolean scheduledBoolean() {
			return true;
		}

		@Lockable(key = "single", onBusy = OnBusy.SKIP)
		Single<String> skippingSingle() {
			return Single.just("single");
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "single")
		Single<String> scheduledSingle() {
			return Single.just("single");
		}

		@Lockable(key = "negative", minHoldMs = -1)
		void negativeMinimum() {
		}

		@Lockable(key = "beyond", minHoldMs = 60_000, timeoutMs = 10_000)
		void minimumBeyondLease() {
		}

	}

}
