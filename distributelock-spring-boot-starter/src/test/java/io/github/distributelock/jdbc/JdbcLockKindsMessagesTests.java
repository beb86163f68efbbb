package io.github.distributelock.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a user of the fair, read/write and permit locks reads when something is wrong, as
 * {@code docs/troubleshooting.md} quotes it, on H2: a lock table created before these
 * kinds existed (and {@code createSchema()} adding their tables beside it), a key held as
 * another kind, an owner that looks like a marker.
 */
class JdbcLockKindsMessagesTests {

	private static final Path PAGE = Path.of(System.getProperty("basedir", "."), "..", "docs", "troubleshooting.md")
		.normalize();

	private static String page;

	private HikariDataSource dataSource;

	private JdbcLockBackend backend;

	private DefaultDistributeLock lock;

	@BeforeAll
	static void readThePage() throws IOException {
		page = Files.readString(PAGE, StandardCharsets.UTF_8);
	}

	@BeforeEach
	void createTheLockTableAsBeforeTheKinds() {
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl("jdbc:h2:mem:kinds-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		this.dataSource.setUsername("sa");
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("CREATE SEQUENCE distributelock_seq");
		jdbc.execute("CREATE TABLE distributelock (lock_key VARCHAR(512) NOT NULL PRIMARY KEY, "
				+ "owner VARCHAR(255) NOT NULL, fencing_token BIGINT NOT NULL, "
				+ "expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL, acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL)");
		this.backend = new JdbcLockBackend(this.dataSource);
		this.lock = new DefaultDistributeLock(this.backend);
	}

	@AfterEach
	void close() {
		this.lock.close();
		this.backend.close();
		new JdbcTemplate(this.dataSource).execute("SHUTDOWN");
		this.dataSource.close();
	}

	@Test
	void theKindsNameTheirMissingTablesAndCreateSchemaAddsThemBesideTheLockTable() throws Exception {
		try (LockHandle plain = this.lock.tryAcquire("plain", Duration.ZERO, null).orElseThrow()) {
			assertThatExceptionOfType(DistributeLockException.class)
				.isThrownBy(() -> this.lock.tryAcquire(LockRequest.of("k").withFair(true)))
				.satisfies((ex) -> {
					String message = ex.getMessage();
					assertThat(message).startsWith("Could not acquire lock 'k' in jdbc: The tables distributelock_q, "
							+ "distributelock_h and distributelock_p");
					String quoted = message.substring(0, message.indexOf("/schema.sql (") + "/schema.sql".length())
						.replace("/h2/", "/postgresql/");
					assertThat(page).contains("`DistributeLockException: " + quoted + " (...)`");
				});
			this.backend.createSchema();
			try (LockHandle fair = this.lock.tryAcquire(LockRequest.of("k").withFair(true)).orElseThrow()) {
				assertThat(fair.fencingToken()).isGreaterThan(plain.fencingToken());
				assertThat(plain.isHeld()).isTrue();
			}
		}
	}

	@Test
	void kindTablesThatDifferFromThisVersionAreNamedAsDifferingNotMissing() {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		for (String suffix : new String[] { "_q", "_h", "_p" }) {
			jdbc.execute("CREATE TABLE distributelock" + suffix + " (lock_key VARCHAR(1024) NOT NULL)");
		}
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> this.lock.tryAcquire(LockRequest.of("k").withFair(true)))
			.satisfies((ex) -> {
				String message = ex.getMessage();
				assertThat(message).startsWith("Could not acquire lock 'k' in jdbc: The tables distributelock_q, "
						+ "distributelock_h and distributelock_p, which fair, read/write and permit locks need beside "
						+ "distributelock, do not match what this version expects")
					.doesNotContain("may be missing");
				String quoted = message.substring(0, message.indexOf(" is held (") + " is held".length())
					.replace("/h2/", "/postgresql/");
				assertThat(page).contains("`DistributeLockException: " + quoted + " (...)`");
			});
	}

	@Test
	void aKeyHeldAsAnotherKindIsRefusedWithTheMessageThePageQuotes() throws Exception {
		this.backend.createSchema();
		DefaultDistributeLock other = new DefaultDistributeLock(this.backend);
		try (LockHandle read = this.lock.tryAcquire(LockRequest.of("k").withMode(LockMode.READ)).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> other.tryAcquire(LockRequest.of("k").withFair(true)))
				.satisfies((ex) -> assertThat(page).contains("`LockKindConflictException: " + ex.getMessage() + "`"));
		}
		finally {
			other.close();
		}
	}

	@Test
	void anOwnerThatLooksLikeAMarkerIsRefusedWithTheMessageThePageQuotes() {
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> this.lock.tryAcquire(LockRequest.of("k").withOwner(JdbcKindMarkers.READERS)))
			.satisfies((ex) -> assertThat(page).contains("`DistributeLockException: " + ex.getMessage() + "`"));
	}

}
