package io.github.distributelock.fault;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockObservationAutoConfiguration;
import io.github.distributelock.scheduling.ReportJob;
import io.github.distributelock.scheduling.ReportJobConfiguration;
import io.github.distributelock.scheduling.RunLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A separate JVM that runs a Spring Boot application with the {@link ReportJob}, started
 * by {@link ScheduledMultiProcessTests} with {@link WorkerProcess}. Its arguments are the
 * application's ({@code --distributelock.type=redis ...}). It prints
 * {@code READY <micros>} once started, {@code RAN ...} after each run of the job, and,
 * once a line on standard input made it close the application,
 * {@code STOPPED <skipped runs>}.
 */
public final class ScheduledWorker {

	private static final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);

	private ScheduledWorker() {
	}

	public static void main(String[] arguments) throws Exception {
		SpringApplication application = new SpringApplication(WorkerApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		SimpleMeterRegistry meters;
		try (ConfigurableApplicationContext context = application.run(arguments)) {
			meters = context.getBean(SimpleMeterRegistry.class);
			print("READY " + ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
			new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		}
		print("STOPPED " + ReportJobConfiguration.skipped(meters));
		System.exit(0);
	}

	private static void print(String line) {
		out.println(WorkerProcess.MARK + line);
	}

	@Configuration(proxyBeanMethods = false)
	@Import(ReportJobConfiguration.class)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DataSourceAutoConfiguration.class,
			DistributeLockAutoConfiguration.class, DistributeLockObservationAutoConfiguration.class })
	static class WorkerApplication {

		@Bean
		RunLog runLog() {
			return (run) -> print(run.format());
		}

	}

}
