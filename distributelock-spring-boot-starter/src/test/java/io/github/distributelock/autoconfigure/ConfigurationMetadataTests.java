package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property is documented in the metadata generated from the properties' Javadoc.
 */
class ConfigurationMetadataTests {

	@Test
	void everyPropertyHasADescription() throws IOException {
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getInputStream()) {
			List<Map<String, Object>> properties = JsonPath.read(metadata, "$.properties[*]");
			assertThat(properties).extracting((property) -> property.get("name"))
				.contains("distributelock.type", "distributelock.watchdog-lease", "distributelock.throw-on-lost",
						"distributelock.fail-message", "distributelock.redis.key-prefix");
			assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
				.as("description of %s", property.get("name"))
				.isNotBlank());
		}
	}

}
