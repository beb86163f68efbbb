package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Lockable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * Warns of a {@code @Scheduled} method whose {@link Lockable#minHoldMs()} is not shorter
 * than the fixed rate or delay of its schedule. The lock a run leaves in the store for
 * its minimum hold is still there when the next run comes, on this instance too, so that
 * run finds it busy: the job runs less often than scheduled. A warning rather than a
 * failure, as a run that outlasts the minimum hold is not affected, and only what the
 * annotation states is checked: a cron expression, whose gaps vary, or a placeholder,
 * resolved by the scheduler, is left alone.
 */
final class ScheduledMinimumHold {

	private static final Log logger = LogFactory.getLog(LockKeyResolver.class);

	/**
	 * The methods warned of: one is defined again for each way it is reached (an
	 * interface proxy asks for the interface's method at the first call).
	 */
	private final Set<Method> warned = ConcurrentHashMap.newKeySet();

	/**
	 * Warns, once per method, if the minimum hold is not shorter than a fixed period of
	 * the method's schedule.
	 * @param method the annotated method, as Spring's scheduler finds its
	 * {@code @Scheduled}
	 * @param minimumHold the minimum hold
	 */
	void check(Method method, Duration minimumHold) {
		if (minimumHold.isZero() || this.warned.contains(method)) {
			return;
		}
		for (Scheduled scheduled : AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class)) {
			Duration rate = period(method, scheduled.fixedRate(), scheduled.fixedRateString(), scheduled.timeUnit());
			Duration delay = period(method, scheduled.fixedDelay(), scheduled.fixedDelayString(), scheduled.timeUnit());
			if (notShorter(minimumHold, rate)) {
				warn(method, minimumHold, "fixedRate", rate);
				return;
			}
			if (notShorter(minimumHold, delay)) {
				warn(method, minimumHold, "fixedDelay", delay);
				return;
			}
		}
	}

	private static boolean notShorter(Duration minimumHold, @Nullable Duration period) {
		return period != null && minimumHold.compareTo(period) >= 0;
	}

	private void warn(Method method, Duration minimumHold, String attribute, Duration period) {
		if (this.warned.add(method) && logger.isWarnEnabled()) {
			logger.warn("@Lockable on " + InvalidLockableException.describe(method) + ": minHoldMs ("
					+ minimumHold.toMillis() + ") is not shorter than the " + attribute + " of its @Scheduled ("
					+ period.toMillis() + " ms): a run can come while the lock is still kept in the store for the "
					+ "minimum hold of the run before, on this instance too, find it busy and not run, so the job "
					+ "runs less often than scheduled. Make minHoldMs shorter than the " + attribute
					+ ", by more than the instances' clocks and schedules may differ, or lengthen the " + attribute);
		}
	}

	/**
	 * The period an attribute and its text form state, read as Spring's scheduler reads
	 * them, or {@code null} if neither states one known before the scheduler resolves it.
	 */
	private static @Nullable Duration period(Method method, long value, String text, TimeUnit unit) {
		if (value > 0) {
			return Duration.of(value, unit.toChronoUnit());
		}
		if (text.isBlank() || text.contains("${") || text.contains("#{")) {
			return null;
		}
		try {
			Duration period = DurationFormatterUtils.detectAndParse(text.trim(),
					DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
			return (!period.isNegative() && !period.isZero()) ? period : null;
		}
		catch (RuntimeException ex) {
			// The scheduler refuses it with its own message when it reads it.
			if (logger.isDebugEnabled()) {
				logger.debug(
						"Did not compare the minimum hold of @Lockable on " + InvalidLockableException.describe(method)
								+ " with its @Scheduled period '" + text + "', which is not a duration",
						ex);
			}
			return null;
		}
	}

}
