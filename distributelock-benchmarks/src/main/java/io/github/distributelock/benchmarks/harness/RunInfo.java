package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The machine, the versions and the settings of one run, for the page.
 *
 * @param date when the run started
 * @param mode full or quick
 * @param settings the settings
 * @param machine CPU, cores, memory, OS and Java
 * @param versions servers and libraries
 * @param arguments the arguments the run was started with
 * @param quietStart what the quiet-machine gate found before the run started
 * @param parts the load average at the start and end of each part
 * @param loadAfter the load average when it ended
 * @param seconds how long the run took
 */
public record RunInfo(String date, String mode, Settings settings, Map<String, String> machine,
		Map<String, String> versions, String arguments, QuietGate.QuietStart quietStart, List<PartLoad> parts,
		String loadAfter, long seconds) {

	public static Map<String, String> describeMachine() {
		Map<String, String> machine = new LinkedHashMap<>();
		machine.put("CPU", cpuModel());
		machine.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
		machine.put("memory", (osBean().getTotalMemorySize() >> 30) + " GiB");
		machine.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
		machine.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		return machine;
	}

	private static com.sun.management.OperatingSystemMXBean osBean() {
		return (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
			.getOperatingSystemMXBean();
	}

	private static String cpuModel() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	public static Map<String, String> describeVersions(Endpoints endpoints) throws Exception {
		Map<String, String> versions = new LinkedHashMap<>();
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", endpoints.redisPort()));
		try (StatefulRedisConnection<String, String> redis = client.connect()) {
			String info = redis.sync().info("server");
			versions.put("Redis",
					info.lines()
						.filter((line) -> line.startsWith("redis_version:"))
						.map((line) -> line.substring("redis_version:".length()))
						.findFirst()
						.orElse("unknown"));
		}
		finally {
			client.shutdown();
		}
		versions.put("ZooKeeper", org.apache.zookeeper.Version.getFullVersion().split("[ -]")[0]);
		try (HikariDataSource pool = StoreClients.pool(endpoints);
				Connection connection = pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW server_version")) {
			result.next();
			versions.put("PostgreSQL", result.getString(1) + " (synchronous_commit=on)");
		}
		versions.put("distributelock", artifact("distributelock-spring-boot-starter",
				io.github.distributelock.core.DefaultDistributeLock.class) + ", commit " + commit());
		versions.put("Lettuce", artifact("lettuce-core", io.lettuce.core.RedisClient.class));
		versions.put("Spring Boot", artifact("spring-boot", org.springframework.boot.SpringApplication.class));
		versions.put("Spring Data Redis",
				artifact("spring-data-redis", org.springframework.data.redis.core.RedisTemplate.class));
		versions.put("Redisson", artifact("redisson", org.redisson.Redisson.class));
		versions.put("Spring Integration", artifact("spring-integration-redis",
				org.springframework.integration.redis.util.RedisLockRegistry.class));
		versions.put("lock4j", artifact("lock4j-core", com.baomidou.lock.LockTemplate.class));
		versions.put("Curator",
				artifact("curator-recipes", org.apache.curator.framework.recipes.locks.InterProcessMutex.class));
		versions.put("ShedLock", artifact("shedlock-provider-jdbc-template",
				net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider.class));
		versions.put("HikariCP", artifact("HikariCP", HikariDataSource.class));
		versions.put("PostgreSQL JDBC", artifact("postgresql", org.postgresql.Driver.class));
		versions.put("JMH", artifact("jmh-core", org.openjdk.jmh.runner.Runner.class));
		return versions;
	}

	/**
	 * The commit of the working tree the run was started in, marked if it had changes.
	 */
	private static String commit() {
		try {
			Process git = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true)
				.start();
			String commit = new String(git.getInputStream().readAllBytes()).trim();
			return (git.waitFor() == 0) ? commit : "unknown";
		}
		catch (IOException ex) {
			return "unknown";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "unknown";
		}
	}

	/** The version of the jar a class comes from, from the jar's file name. */
	private static String artifact(String artifact, Class<?> type) {
		try {
			String file = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
				.getFileName()
				.toString();
			if (file.startsWith(artifact + "-") && file.endsWith(".jar")) {
				return file.substring(artifact.length() + 1, file.length() - ".jar".length());
			}
			return file;
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

	public static String now() {
		return Instant.now().toString();
	}

}
