package io.github.distributelock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure analyzers are registered in {@code META-INF/spring.factories}, so a real
 * application that fails to start prints their description and action, not a stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailureAnalyzerRegistrationTests {

	@Test
	void unknownTypeIsReportedByTheRegisteredAnalyzerAtStartup(CapturedOutput output) {
		SpringApplication application = new SpringApplication(LockOnlyApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--distributelock.type=etcd"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("'etcd'")
			.contains("redis, zookeeper, jdbc");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DistributeLockAutoConfiguration.class)
	static class LockOnlyApplication {

	}

}
