package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference in {@code docs/configuration.md} is the table generated
 * from the configuration metadata, so it lists every property with its current type,
 * default and description. When it is stale, regenerate it with {@value #UPDATE_COMMAND}.
 */
class ConfigurationReferenceTests {

	static final String UPDATE_COMMAND = "./mvnw test -pl distributelock-spring-boot-starter "
			+ "-Dtest=ConfigurationReferenceTests -Ddistributelock.docs.update=true";

	private static final String BEGIN = "<!-- BEGIN GENERATED: configuration properties -->";

	private static final String END = "<!-- END GENERATED: configuration properties -->";

	private static final Path PAGE = Path.of(System.getProperty("basedir", "."), "..", "docs", "configuration.md")
		.normalize();

	private static final Path README = Path.of(System.getProperty("basedir", "."), "..", "README.md").normalize();

	@Test
	void readmeListsEveryDistributeLockProperty() throws IOException {
		String readme = Files.readString(README, StandardCharsets.UTF_8);
		assertThat(properties()).filteredOn(ConfigurationReferenceTests::isOurs)
			.extracting((property) -> "| `" + property.get("name") + "` |")
			.as("properties missing from the table of %s", README)
			.allSatisfy((row) -> assertThat(readme).contains(row));
	}

	@Test
	void pageListsEveryPropertyOfTheMetadata() throws IOException {
		List<Map<String, Object>> properties = properties();
		String page = Files.readString(PAGE, StandardCharsets.UTF_8);
		int begin = page.indexOf(BEGIN);
		int end = page.indexOf(END);
		assertThat(begin).as("%s has the marker %s", PAGE, BEGIN).isNotNegative();
		assertThat(end).as("%s has the marker %s", PAGE, END).isGreaterThan(begin);
		String generated = table(properties);
		String updated = page.substring(0, begin + BEGIN.length()) + "\n" + generated + page.substring(end);
		if (Boolean.getBoolean("distributelock.docs.update")) {
			Files.writeString(PAGE, updated, StandardCharsets.UTF_8);
			return;
		}
		String current = page.substring(begin, end);
		assertThat(properties).extracting((property) -> "`" + property.get("name") + "`")
			.as("properties missing from %s; regenerate it with %s", PAGE, UPDATE_COMMAND)
			.allSatisfy((name) -> assertThat(current).contains(name));
		assertThat(page)
			.as("%s is not the table generated from the metadata; regenerate it with %s", PAGE, UPDATE_COMMAND)
			.isEqualTo(updated);
	}

	private static List<Map<String, Object>> properties() throws IOException {
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getInputStream()) {
			List<Map<String, Object>> properties = JsonPath.read(metadata, "$.properties[*]");
			return properties.stream()
				.sorted(Comparator.comparing((Map<String, Object> property) -> !isOurs(property))
					.thenComparing((property) -> (String) property.get("name")))
				.toList();
		}
	}

	private static boolean isOurs(Map<String, Object> property) {
		return ((String) property.get("name")).startsWith("distributelock.");
	}

	private static String table(List<Map<String, Object>> properties) {
		StringBuilder table = new StringBuilder("| property | type | default | description |\n|---|---|---|---|\n");
		for (Map<String, Object> property : properties) {
			table.append("| `")
				.append(property.get("name"))
				.append("` | ")
				.append(simpleType((String) property.get("type")))
				.append(" | ")
				.append(defaultValue(property.get("defaultValue")))
				.append(" | ")
				.append(cell(String.valueOf(property.get("description"))))
				.append(" |\n");
		}
		return table.toString();
	}

	private static String simpleType(String type) {
		// Packages and enclosing classes dropped from every name, also inside generics:
		// Set\<String>, StartupCheck.
		return (type != null)
				? type.replaceAll("(?:[a-z_][a-z0-9_]*\\.)+", "").replaceAll("[A-Za-z0-9_]+\\$", "").replace("<", "\\<")
				: "";
	}

	private static String defaultValue(Object value) {
		return (value != null) ? "`" + cell(String.valueOf(value)) + "`" : "(none)";
	}

	private static String cell(String text) {
		return text.replace("|", "\\|").replace("\n", " ");
	}

}
