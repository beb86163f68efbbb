package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A native image gets the scripts distributelock reads from the class path.
 */
class DistributeLockRuntimeHintsTests {

	@Test
	void everyScriptOnTheClassPathIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new DistributeLockRuntimeHints().registerHints(hints, getClass().getClassLoader());
		String[] scripts = scripts();
		assertThat(scripts).contains("io/github/distributelock/redis/acquire.lua",
				"io/github/distributelock/redis/release.lua", "io/github/distributelock/redis/renew.lua");
		assertThat(scripts)
			.allSatisfy((script) -> assertThat(RuntimeHintsPredicates.resource().forResource(script)).as(script)
				.accepts(hints));
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/distributelock/jdbc/schema-postgresql.sql"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("application.properties")).rejects(hints);
	}

	@Test
	void aheadOfTimeProcessingOfTheAutoConfigurationRegistersTheHints() {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(DistributeLockAutoConfiguration.class);
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(getClass())), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/distributelock/redis/acquire.lua"))
			.accepts(generationContext.getRuntimeHints());
	}

	private String[] scripts() throws IOException {
		Resource[] resources = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/distributelock/**/*.lua");
		return Arrays.stream(resources).map((resource) -> {
			try {
				String url = resource.getURL().toString();
				return url.substring(url.indexOf("io/github/distributelock/"));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}).toArray(String[]::new);
	}

}
