package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Lockable;
import io.github.distributelock.LogLines;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Scheduled} method whose {@code minHoldMs} is not shorter than the period of
 * its schedule skips runs: the lock one run leaves in the store for its minimum hold is
 * still there when the next run comes, also on the same instance (as every store's
 * contract test shows: {@code AbstractLockBackendContractTests}, "not reentrant any more,
 * for the thread that held it either"). It is told once, at startup, with a WARN that
 * names the method, the minimum hold and the period; a period known only at run time (a
 * cron expression, a placeholder) is not checked.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledMinimumHoldTests {

	private static final String WARNING = "@Lockable on " + Jobs.class.getName() + ".";

	private final LockKeyResolver resolver = new LockKeyResolver("_", "busy|1");

	@Test
	void aMinimumHoldAtOrAboveTheFixedRateIsWarnedOfWithWhatToDo(CapturedOutput output) {
		define("rateEqual");
		define("rateBelow");
		assertThat(LogLines.containing(output, WARNING + "rateEqual")).singleElement()
			.satisfies((line) -> assertThat(line).contains(" WARN ")
				.endsWith(WARNING + "rateEqual: minHoldMs (1000) is not shorter than the fixedRate of its @Scheduled "
						+ "(1000 ms): a run can come while the lock is still kept in the store for the minimum hold "
						+ "of the run before, on this instance too, find it busy and not run, so the job runs less "
						+ "often than scheduled. Make minHoldMs shorter than the fixedRate, by more than the "
						+ "instances' clocks and schedules may differ, or lengthen the fixedRate"));
		assertThat(LogLines.containing(output, WARNING + "rateBelow")).singleElement()
			.satisfies((line) -> assertThat(line)
				.contains("minHoldMs (1500) is not shorter than the fixedRate " + "of its @Scheduled (1000 ms)"));
	}

	@Test
	void aMinimumHoldAtOrAboveTheFixedDelayInItsTimeUnitOrWrittenAsTextIsWarnedOf(CapturedOutput output) {
		define("delayInSeconds");
		define("rateAsDuration");
		define("delayAsNumber");
		assertThat(LogLines.containing(output, WARNING + "delayInSeconds")).singleElement()
			.satisfies((line) -> assertThat(line)
				.contains("minHoldMs (2000) is not shorter than the fixedDelay " + "of its @Scheduled (2000 ms)")
				.contains("Make minHoldMs shorter than the fixedDelay"));
		assertThat(LogLines.containing(output, WARNING + "rateAsDuration")).singleElement()
			.satisfies((line) -> assertThat(line)
				.contains("minHoldMs (90000) is not shorter than the fixedRate " + "of its @Scheduled (60000 ms)"));
		assertThat(LogLines.containing(output, WARNING + "delayAsNumber")).singleElement()
			.satisfies((line) -> assertThat(line)
				.contains("minHoldMs (500) is not shorter than the fixedDelay " + "of its @Scheduled (500 ms)"));
	}

	@Test
	void aMinimumHoldShorterThanThePeriodOrAPeriodNotKnownAtStartupIsNotWarnedOf(CapturedOutput output) {
		define("rateLonger");
		define("cron");
		define("placeholder");
		define("noMinimumHold");
		define("notScheduled");
		assertThat(LogLines.containing(output, "@Lockable on ")).isEmpty();
	}

	/**
	 * A method is defined again for each way it is reached (an interface proxy asks for
	 * the interface's method at the first call), and warned of once.
	 */
	@Test
	void aMethodDefinedAgainThroughItsInterfaceIsWarnedOfOnce(CapturedOutput output) throws Exception {
		this.resolver.definition(Jobs.class.getDeclaredMethod("fromInterface"), Jobs.class);
		this.resolver.definition(ScheduledJob.class.getDeclaredMethod("fromInterface"), Jobs.class);
		assertThat(LogLines.containing(output, WARNING + "fromInterface")).hasSize(1);
	}

	@Test
	void theWarningIsLoggedAtStartup(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withBean(LockBackend.class, MemoryLockBackend::new)
			.withBean(Jobs.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(LogLines.containing(output, WARNING + "rateEqual: minHoldMs (1000)")).hasSize(1);
			});
	}

	private void define(String name) {
		Method method = Arrays.stream(Jobs.class.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		assertThat(this.resolver.definition(method, Jobs.class)).isNotNull();
	}

	interface ScheduledJob {

		void fromInterface();

	}

	static class Jobs implements ScheduledJob {

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "rateEqual", minHoldMs = 1000)
		public void rateEqual() {
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "rateBelow", minHoldMs = 1500)
		public void rateBelow() {
		}

		@Scheduled(fixedDelay = 2, timeUnit = TimeUnit.SECONDS)
		@Lockable(key = "delayInSeconds", minHoldMs = 2000)
		public void delayInSeconds() {
		}

		@Scheduled(fixedRateString = "PT1M")
		@Lockable(key = "rateAsDuration", minHoldMs = 90_000)
		public void rateAsDuration() {
		}

		@Scheduled(fixedDelayString = "500")
		@Lockable(key = "delayAsNumber", minHoldMs = 500)
		public void delayAsNumber() {
		}

		@Scheduled(fixedRate = 2000)
		@Lockable(key = "rateLonger", minHoldMs = 1500)
		public void rateLonger() {
		}

		@Scheduled(cron = "* * * * * *")
		@Lockable(key = "cron", minHoldMs = 1500)
		public void cron() {
		}

		@Scheduled(fixedRateString = "${job.rate}")
		@Lockable(key = "placeholder", minHoldMs = 1500)
		public void placeholder() {
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "noMinimumHold")
		public void noMinimumHold() {
		}

		@Lockable(key = "notScheduled", minHoldMs = 1500)
		public void notScheduled() {
		}

		@Override
		@Scheduled(fixedRate = 1000)
		@Lockable(key = "fromInterface", minHoldMs = 1000)
		public void fromInterface() {
		}

	}

}
