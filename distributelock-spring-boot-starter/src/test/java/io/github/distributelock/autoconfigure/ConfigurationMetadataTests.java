package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every property is documented in the metadata generated from the properties' Javadoc,
 * with the default of the code.
 */
class ConfigurationMetadataTests {

	private static final String PREFIX = "distributelock.";

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

	@Test
	void everyDefaultIsTheDefaultOfTheProperties() throws IOException {
		// The metadata cannot read defaults that are constants of other classes, so they
		// are repeated in additional-spring-configuration-metadata.json: this keeps them
		// equal.
		BeanWrapper defaults = new BeanWrapperImpl(new DistributeLockProperties());
		ConversionService conversion = ApplicationConversionService.getSharedInstance();
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getInputStream()) {
			List<Map<String, Object>> properties = JsonPath.read(metadata, "$.properties[*]");
			assertThat(properties).filteredOn((property) -> ((String) property.get("name")).startsWith(PREFIX))
				.hasSizeGreaterThan(20)
				.allSatisfy((property) -> {
					String name = (String) property.get("name");
					Object value = defaults.getPropertyValue(propertyPath(name.substring(PREFIX.length())));
					Object documented = property.get("defaultValue");
					if (value == null || (value instanceof java.util.Collection<?> many && many.isEmpty())) {
						assertThat(documented).as("default of %s in the metadata", name).isNull();
					}
					else {
						assertThat(documented).as("default of %s in the metadata", name).isNotNull();
						assertThat(conversion.convert(documented, value.getClass()))
							.as("default of %s in the metadata", name)
							.isEqualTo(value);
					}
				});
		}
	}

	/** Such as redis.keyPrefix for redis.key-prefix. */
	private static String propertyPath(String name) {
		StringBuilder path = new StringBuilder();
		boolean upper = false;
		for (char character : name.toCharArray()) {
			if (character == '-') {
				upper = true;
			}
			else {
				path.append(upper ? Character.toUpperCase(character) : character);
				upper = false;
			}
		}
		return path.toString();
	}

}
