package io.github.distributelock.actuate;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.MemoryLockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observations of the non-blocking API ({@code tryAcquireAsync}): the attempt's scope
 * is opened on the calling thread, which the call leaves at once, so it must be closed
 * there when the call returns and never on the thread where the store answers; the hold
 * is still a sibling of the attempt under the caller's observation.
 */
class ObservationOfNonBlockingCallsTests {

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aNonBlockingAcquisitionLeavesTheCallersObservationCurrentOnItsThread() throws Exception {
		JdbcLockBackend store = h2();
		DefaultDistributeLock lock = newLock(store);
		DefaultDistributeLock other = newLock(store);
		Observation caller = Observation.start("caller", this.observations);
		try (Observation.Scope scope = caller.openScope()) {
			// Answered on the backend's pool: the attempt ends on another thread.
			Optional<LockHandle> taken = lock.tryAcquireAsync(LockRequest.of("account:1")).get(10, TimeUnit.SECONDS);
			assertThat(this.observations.getCurrentObservation()).isSameAs(caller);
			taken.orElseThrow().close();
			try (LockHandle held = other.tryAcquire("account:2", Duration.ZERO, null).orElseThrow()) {
				CompletableFuture<Optional<LockHandle>> waiting = lock
					.tryAcquireAsync(LockRequest.of("account:2").withWaitTime(Duration.ofSeconds(10)));
				assertThat(this.observations.getCurrentObservation()).isSameAs(caller);
				held.close();
				waiting.get(10, TimeUnit.SECONDS).orElseThrow().close();
			}
			assertThat(this.observations.getCurrentObservation()).isSameAs(caller);
		}
		caller.stop();
		assertThat(this.observations.getCurrentObservation()).isNull();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("distributelock.acquire", 3)
			.hasNumberOfObservationsWithNameEqualTo("distributelock.hold", 3);
		assertThat(this.observations)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("distributelock.hold")
				.hasHighCardinalityKeyValue("lock.key", "account:1")
				.hasParentObservationEqualTo(caller));
		assertThat(this.observations)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("distributelock.hold")
				.hasHighCardinalityKeyValue("lock.key", "account:2")
				.hasParentObservationEqualTo(caller));
	}

	@Test
	void aNonBlockingMultiKeyRequestThatWaitsLeavesNoObservationCurrentOnTheCallersThread() throws Exception {
		MemoryLockBackend store = new MemoryLockBackend();
		DefaultDistributeLock lock = newLock(store);
		DefaultDistributeLock other = newLock(store);
		LockRequest both = LockRequest.all(LockRequest.of("stock:1"), LockRequest.of("stock:2"))
			.withWaitTime(Duration.ofSeconds(10));
		CompletableFuture<Optional<LockHandle>> waiting;
		try (LockHandle held = other.tryAcquire("stock:2", Duration.ZERO, null).orElseThrow()) {
			waiting = lock.tryAcquireAsync(both);
			assertThat(this.observations.getCurrentObservation()).isNull();
		}
		waiting.get(10, TimeUnit.SECONDS).orElseThrow().close();
		assertThat(this.observations.getCurrentObservation()).isNull();
	}

	private DefaultDistributeLock newLock(LockBackend store) {
		return this.closeables.add(new DefaultDistributeLock(store, Duration.ofSeconds(30), false,
				new ObservationLockEventListener(this.observations), null));
	}

	private JdbcLockBackend h2() {
		HikariDataSource dataSource = this.closeables.add(new HikariDataSource());
		dataSource.setJdbcUrl("jdbc:h2:mem:observations-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		dataSource.setUsername("sa");
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(dataSource));
		backend.createSchema();
		return backend;
	}

}
