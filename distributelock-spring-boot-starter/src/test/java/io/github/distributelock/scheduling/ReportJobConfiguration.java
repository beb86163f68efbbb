package io.github.distributelock.scheduling;

import java.time.Clock;
import java.time.Duration;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * One instance of an application with the {@link ReportJob}: its name is the property
 * {@code report.instance}, and its scheduler's clock is {@code report.clock-behind-ms}
 * behind the real one, so that its ticks come that much later. Its lock metrics go to a
 * {@link SimpleMeterRegistry}. The {@link RunLog} is the caller's.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
public class ReportJobConfiguration {

	@Bean
	Clock reportClock(Environment environment) {
		long behind = environment.getProperty("report.clock-behind-ms", Long.class, 0L);
		return Clock.offset(Clock.systemUTC(), Duration.ofMillis(-behind));
	}

	@Bean
	ThreadPoolTaskScheduler taskScheduler(Clock reportClock, Environment environment) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setClock(reportClock);
		scheduler.setThreadNamePrefix(environment.getRequiredProperty("report.instance") + "-scheduling-");
		return scheduler;
	}

	@Bean
	ReportJob reportJob(Clock reportClock, Environment environment, RunLog runLog) {
		return new ReportJob(environment.getRequiredProperty("report.instance"), reportClock, runLog);
	}

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	ObservationRegistry observationRegistry(SimpleMeterRegistry meterRegistry) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
		return registry;
	}

	/**
	 * How many times this instance skipped the job because the lock was busy.
	 * @param meters the instance's meters
	 * @return the number of skipped runs
	 */
	public static long skipped(SimpleMeterRegistry meters) {
		var timer = meters.find("distributelock.acquire")
			.tag("result", "skipped")
			.tag("lock.name", "report.job")
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

}
