package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.net.URL;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

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
 * A native image gets every script and SQL statement the starter reads from its jar.
 */
class DistributeLockRuntimeHintsTests {

	private static final String PACKAGE = "io/github/distributelock/";

	@Test
	void everyScriptAndStatementOfTheStarterIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new DistributeLockRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> resources = starterResources("lua", "sql");
		// Guards the enumeration itself: each backend's files, under their real names.
		assertThat(resources).contains(PACKAGE + "redis/acquire.lua", PACKAGE + "redis/release.lua",
				PACKAGE + "redis/renew.lua", PACKAGE + "jdbc/postgresql/schema.sql", PACKAGE + "jdbc/h2/acquire.sql",
				PACKAGE + "jdbc/mariadb/release.sql");
		Map<String, Set<String>> statementsByDialect = resources.stream()
			.filter((resource) -> resource.startsWith(PACKAGE + "jdbc/"))
			.map((resource) -> resource.substring((PACKAGE + "jdbc/").length()).split("/"))
			.collect(Collectors.groupingBy((path) -> path[0], TreeMap::new,
					Collectors.mapping((path) -> path[1], Collectors.toCollection(TreeSet::new))));
		// The statements of the shard list are shared by every dialect.
		assertThat(statementsByDialect.remove("shards")).contains("schema.sql", "read.sql");
		assertThat(statementsByDialect).containsOnlyKeys("h2", "mariadb", "mysql", "postgresql");
		// MySQL also trims the counter table its fencing tokens come from; MariaDB and
		// MySQL find the rows their purge deletes with a read that locks nothing;
		// PostgreSQL also has releases that notify the waiters of other instances, every
		// time or when a refused attempt marked the row (its waited column), and attempts
		// that bound their wait for a row by the caller's deadline.
		Set<String> postgresOnly = Set.of("release-notify.sql", "acquire-marking.sql", "release-notify-waited.sql",
				"waited-column.sql", "waited-column-add.sql", "acquire-bounded.sql", "acquire-marking-bounded.sql");
		assertThat(statementsByDialect.get("mysql")).contains("purge-counter.sql", "purge-candidates.sql");
		assertThat(statementsByDialect.get("mariadb")).contains("purge-candidates.sql");
		assertThat(statementsByDialect.get("postgresql")).containsAll(postgresOnly);
		Set<String> common = new TreeSet<>(statementsByDialect.get("h2"));
		Set<String> extras = new TreeSet<>(postgresOnly);
		extras.add("purge-counter.sql");
		extras.add("purge-candidates.sql");
		assertThat(statementsByDialect.values())
			.allSatisfy((statements) -> assertThat(statements).containsAll(common).isSubsetOf(union(common, extras)));
		assertThat(resources)
			.allSatisfy((resource) -> assertThat(RuntimeHintsPredicates.resource().forResource(resource))
				.as("runtime hint for %s", resource)
				.accepts(hints));
		assertThat(RuntimeHintsPredicates.resource().forResource("application.properties")).rejects(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource(PACKAGE + "core/DefaultDistributeLock.class"))
			.rejects(hints);
	}

	@Test
	void aheadOfTimeProcessingOfTheAutoConfigurationRegistersTheHints() throws IOException {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(DistributeLockAutoConfiguration.class);
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(getClass())), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		assertThat(starterResources("lua", "sql"))
			.allSatisfy((resource) -> assertThat(RuntimeHintsPredicates.resource().forResource(resource))
				.as("runtime hint for %s", resource)
				.accepts(generationContext.getRuntimeHints()));
	}

	private static Set<String> union(Set<String> statements, Set<String> more) {
		Set<String> union = new TreeSet<>(statements);
		union.addAll(more);
		return union;
	}

	/**
	 * The resources with these extensions under {@code io/github/distributelock} in the
	 * starter's own classes (what its jar holds), not in the tests' resources.
	 */
	private static List<String> starterResources(String... extensions) throws IOException {
		URL root = DistributeLockRuntimeHints.class.getProtectionDomain().getCodeSource().getLocation();
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
		return Arrays.stream(extensions)
			.flatMap((extension) -> Arrays.stream(resources(resolver, "classpath*:" + PACKAGE + "**/*." + extension)))
			.map((resource) -> url(resource).toString())
			.filter((url) -> url.startsWith(root.toString()))
			.map((url) -> url.substring(url.indexOf(PACKAGE)))
			.sorted()
			.toList();
	}

	private static Resource[] resources(PathMatchingResourcePatternResolver resolver, String pattern) {
		try {
			return resolver.getResources(pattern);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static URL url(Resource resource) {
		try {
			return resource.getURL();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
