package io.github.distributelock.actuate;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.List;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.MemoryLockBackend;
import io.github.distributelock.core.SessionMemoryLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Acquisitions and holds on a real redis-server, observed through a registry that checks
 * the observations' lifecycle and feeds Micrometer's default meter handler.
 */
class ObservationLockEventListenerTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	ObservationLockEventListenerTests() {
		this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters));
	}

	@Test
	void acquisitionsAreTimedByBackendLockNameAndResult() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		DefaultDistributeLock other = newLock(Duration.ofSeconds(30));
		lock.tryAcquire("account:42", Duration.ZERO, null).orElseThrow().close();
		try (LockHandle held = other.tryAcquire("account:43", Duration.ZERO, null).orElseThrow()) {
			assertThat(lock.tryAcquire("account:43", Duration.ofMillis(50), null)).isEmpty();
		}
		assertThat(acquireTimer("acquired").count()).isEqualTo(2);
		assertThat(acquireTimer("timeout").count()).isEqualTo(1);
		assertThat(this.observations).hasObservationWithNameEqualTo("distributelock.acquire")
			.that()
			.hasContextualNameEqualTo("acquire lock account")
			.hasHighCardinalityKeyValue("lock.key", "account:42");
	}

	@Test
	void aBusyLockThatTheCallerSkipsIsCountedAsSkipped() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		DefaultDistributeLock other = newLock(Duration.ofSeconds(30));
		try (LockHandle held = other.tryAcquire("account:44", Duration.ZERO, null).orElseThrow()) {
			assertThat(lock.tryAcquire(LockRequest.of("account:44").withSkipWhenBusy(true))).isEmpty();
			assertThat(lock.tryAcquire(LockRequest.of("account:44").withSkipWhenBusy(true))).isEmpty();
			assertThat(lock.tryAcquire(LockRequest.of("account:44"))).isEmpty();
		}
		assertThat(acquireTimer("skipped").count()).isEqualTo(2);
		assertThat(acquireTimer("timeout").count()).isEqualTo(1);
	}

	@Test
	void theKindOfLockIsATagOfTheAcquisitionAndTheHold() throws Exception {
		DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend(), Duration.ofSeconds(30), false,
				new ObservationLockEventListener(this.observations), null);
		this.closeables.add(lock);
		lock.tryAcquire(LockRequest.of("account:45").withMode(LockMode.READ)).orElseThrow().close();
		lock.tryAcquire(LockRequest.of("account:45").withPermits(3)).orElseThrow().close();
		lock.tryAcquire(LockRequest.of("account:46")).orElseThrow().close();
		for (String kind : List.of("read", "permits", "exclusive")) {
			assertThat(this.meters.get("distributelock.acquire")
				.tags("lock.name", "account", "lock.kind", kind, "result", "acquired")
				.timer()
				.count()).as(kind).isEqualTo(1);
			assertThat(this.meters.get("distributelock.hold")
				.tags("lock.name", "account", "lock.kind", kind, "outcome", "released")
				.timer()
				.count()).as(kind).isEqualTo(1);
		}
	}

	@Test
	void eachKeyOfAMultiKeyRequestTakenInOneCallIsObservedAndNoScopeIsLeftOnTheCallersThread() throws Exception {
		MemoryLockBackend store = new MemoryLockBackend();
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(store, Duration.ofSeconds(30), false,
				new ObservationLockEventListener(this.observations), null));
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(store, Duration.ofSeconds(30),
				false, new ObservationLockEventListener(this.observations), null));
		LockRequest both = LockRequest.all(LockRequest.of("stock:1"), LockRequest.of("stock:2"));
		lock.tryAcquire(both).orElseThrow().close();
		assertThat(this.observations.getCurrentObservation()).isNull();
		try (LockHandle held = other.tryAcquire("stock:2", Duration.ZERO, null).orElseThrow()) {
			assertThat(lock.tryAcquire(both.withWaitTime(Duration.ofMillis(50)))).isEmpty();
		}
		assertThat(this.observations.getCurrentObservation()).isNull();
		// Refused before any key is asked of the store: this thread reads stock:2.
		try (LockHandle reading = lock.tryAcquire(LockRequest.of("stock:2").withMode(LockMode.READ)).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class).isThrownBy(() -> lock.tryAcquire(both));
		}
		assertThat(this.observations.getCurrentObservation()).isNull();
		assertThat(lock.heldLocks()).isEmpty();
		assertThat(this.meters.get("distributelock.acquire")
			.tags("lock.name", "stock", "lock.kind", "exclusive", "result", "acquired")
			.timer()
			.count()).isEqualTo(3);
		assertThat(this.meters.get("distributelock.acquire")
			.tags("lock.name", "stock", "lock.kind", "exclusive", "result", "timeout")
			.timer()
			.count()).isEqualTo(2);
		assertThat(this.meters.get("distributelock.hold")
			.tags("lock.name", "stock", "lock.kind", "exclusive")
			.timer()
			.count()).isEqualTo(3);
	}

	@Test
	void theFullKeyNeverBecomesATag() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		lock.tryAcquire("order.addOder_4242_tokenXYZ", Duration.ZERO, null).orElseThrow().close();
		lock.tryAcquire("order.addOder_4243_tokenXYZ", "order.addOder", Duration.ZERO, null).orElseThrow().close();
		List<String> tagValues = this.meters.getMeters()
			.stream()
			.flatMap((meter) -> meter.getId().getTags().stream())
			.map(Tag::getValue)
			.toList();
		assertThat(tagValues).contains("order", "order.addOder")
			.noneMatch((value) -> value.contains("4242"))
			.noneMatch((value) -> value.contains("4243"))
			.noneMatch((value) -> value.contains("tokenXYZ"));
	}

	@Test
	void storeFailureIsAnError() {
		DefaultDistributeLock lock = new DefaultDistributeLock(new FailingBackend(), Duration.ofSeconds(30), false,
				new ObservationLockEventListener(this.observations), null);
		this.closeables.add(lock);
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> lock.tryAcquire("account:1", Duration.ZERO, null));
		assertThat(this.meters.get("distributelock.acquire")
			.tags("backend", "failing", "lock.name", "account", "result", "error", "error", "DistributeLockException")
			.timer()
			.count()).isEqualTo(1);
	}

	@Test
	void holdIsALongTaskTimerUntilTheRelease() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		LockHandle handle = lock.tryAcquire("account:7", Duration.ZERO, null).orElseThrow();
		assertThat(this.meters.get("distributelock.hold.active")
			.tags("backend", "redis", "lock.name", "account")
			.longTaskTimer()
			.activeTasks()).isEqualTo(1);
		handle.close();
		assertThat(this.meters.get("distributelock.hold.active").longTaskTimer().activeTasks()).isZero();
		assertThat(holdTimer("released").count()).isEqualTo(1);
	}

	@Test
	void renewalsAndLossesAreCounted() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofMillis(300));
		try (LockHandle renewed = lock.tryAcquire("account:8", Duration.ZERO, null).orElseThrow()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> counter("distributelock.hold.renewed") >= 2);
		}
		LockHandle expiring = lock.tryAcquire("account:9", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> counter("distributelock.hold.lost") == 1);
		expiring.close();
		// The loss is counted first, and the hold ends just after (its timer recorded,
		// then its active task stopped) on the thread that found the loss, which the
		// close of a lost lock does not wait for: the test could look in between.
		await().atMost(Duration.ofSeconds(10)).until(() -> holdsNow() == 0);
		assertThat(holdTimer("lost").count()).isEqualTo(1);
		assertThat(holdTimer("released").count()).isEqualTo(1);
		assertThat(counter("distributelock.hold.lost")).isEqualTo(1);
	}

	@Test
	void aLockWhoseLeaseRanOutIsNoLongerHeldNowAndItsHoldEndsOnceAtTheLoss() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		DefaultDistributeLock other = newLock(Duration.ofSeconds(30));
		LockHandle expiring = lock.tryAcquire("account:11", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		assertThat(holdsNow()).isOne();
		// Taken by another instance once the lease ran out, while the handle is open.
		LockHandle taker = other.tryAcquire("account:11", Duration.ofSeconds(10), null).orElseThrow();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !expiring.isHeld() && counter("distributelock.hold.lost") == 1);
		// The loss is counted first, and the hold ends just after (its timer recorded,
		// then its active task stopped) on the thread that found the loss.
		await("the taker's hold only").atMost(Duration.ofSeconds(10)).until(() -> holdsNow() == 1);
		assertThat(holdTimer("lost").count()).isEqualTo(1);
		expiring.close();
		assertThat(holdsNow()).isOne();
		assertThat(holdTimer("lost").count()).as("not ended again at the close").isEqualTo(1);
		assertThat(this.meters.find("distributelock.hold").tags("outcome", "released").timer()).isNull();
		taker.close();
		assertThat(holdsNow()).isZero();
		assertThat(holdTimer("released").count()).isEqualTo(1);
		assertThat(this.observations).hasObservationWithNameEqualTo("distributelock.hold")
			.that()
			.hasHighCardinalityKeyValue("fencing.token", Long.toString(expiring.fencingToken()))
			.hasLowCardinalityKeyValue("outcome", "lost")
			.hasEvent(DistributeLockObservationDocumentation.LockHoldEvent.LOST.getName());
	}

	@Test
	void aLockReportedLostWhileItWasAcquiredIsNeverCountedAsHeldNow() throws Exception {
		SessionMemoryLockBackend backend = this.closeables.add(new SessionMemoryLockBackend());
		backend.expireSessionAfterNextAcquire = true;
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30),
				false, new ObservationLockEventListener(this.observations), null));
		LockHandle handle = lock.tryAcquire("account:14", Duration.ZERO, null).orElseThrow();
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.meters.get("distributelock.hold.active")
			.tags("backend", "session", "lock.name", "account")
			.longTaskTimer()
			.activeTasks()).isZero();
		handle.close();
		assertThat(this.meters.get("distributelock.hold")
			.tags("backend", "session", "lock.name", "account", "outcome", "lost")
			.timer()
			.count()).isEqualTo(1);
		assertThat(counter("distributelock.hold.lost", "session")).isEqualTo(1);
	}

	@Test
	void aLockWhoseZooKeeperSessionEndedIsNoLongerHeldNow() throws Exception {
		CuratorFramework client = zooKeeper.newClient(Duration.ofSeconds(10));
		this.closeables.add(client::close);
		ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client);
		this.closeables.add(backend);
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30),
				false, new ObservationLockEventListener(this.observations), null));
		LockHandle handle = lock.tryAcquire("account:13", Duration.ZERO, null).orElseThrow();
		assertThat(zooKeeperHoldsNow()).isOne();
		zooKeeper.expireSession(client);
		await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
		// The handle is marked lost first, and the hold's observation ends just after, on
		// the thread that learnt of the loss: the test could look in between (seen in
		// CI).
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeperHoldsNow() == 0);
		handle.close();
		assertThat(this.meters.get("distributelock.hold")
			.tags("backend", "zookeeper", "lock.name", "account", "outcome", "lost")
			.timer()
			.count()).isEqualTo(1);
		assertThat(this.meters.find("distributelock.hold").tags("backend", "zookeeper", "outcome", "released").timer())
			.isNull();
	}

	@Test
	void failedRenewalsAreCountedWhileTheLeaseLasts() throws Exception {
		// A server of its own, as the test stops it.
		try (EmbeddedRedis stoppable = EmbeddedRedis.start()) {
			LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(stoppable.port(),
					Duration.ofMillis(500));
			RedisLockBackend backend = new RedisLockBackend(factory);
			// Renewed every 2 s: the first renewal fails well before the 6 s lease runs
			// out.
			DefaultDistributeLock lock = new DefaultDistributeLock(backend, Duration.ofSeconds(6), false,
					new ObservationLockEventListener(this.observations), null);
			try {
				LockHandle handle = lock.tryAcquire("account:12", Duration.ZERO, null).orElseThrow();
				stoppable.stop();
				try {
					await().atMost(Duration.ofSeconds(10))
						.until(() -> counter("distributelock.hold.renewal.failed") >= 1);
					assertThat(counter("distributelock.hold.lost")).isZero();
					assertThat(this.meters.get("distributelock.hold.active").longTaskTimer().activeTasks()).isOne();
				}
				finally {
					stoppable.restart();
				}
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
					backend.probe();
					return true;
				});
				handle.close();
			}
			finally {
				lock.close();
				backend.close();
				factory.destroy();
			}
		}
		assertThat(this.observations).hasObservationWithNameEqualTo("distributelock.hold")
			.that()
			.hasHighCardinalityKeyValue("lock.key", "account:12")
			.hasEvent(DistributeLockObservationDocumentation.LockHoldEvent.RENEWAL_FAILED.getName());
	}

	@Test
	void bothObservationsAreChildrenOfTheCallersObservation() throws Exception {
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(30));
		Observation caller = Observation.start("caller", this.observations);
		try (Observation.Scope scope = caller.openScope()) {
			lock.tryAcquire("account:10", Duration.ZERO, null).orElseThrow().close();
		}
		caller.stop();
		assertThat(this.observations).hasObservationWithNameEqualTo("distributelock.acquire")
			.that()
			.hasParentObservationEqualTo(caller);
		assertThat(this.observations).hasObservationWithNameEqualTo("distributelock.hold")
			.that()
			.hasParentObservationEqualTo(caller)
			.hasLowCardinalityKeyValue("outcome", "released")
			.hasHighCardinalityKeyValue("lock.key", "account:10");
		assertThat(this.observations.getCurrentObservation()).isNull();
	}

	private DefaultDistributeLock newLock(Duration watchdogLease) {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		this.closeables.add(factory::destroy);
		RedisLockBackend backend = new RedisLockBackend(factory);
		this.closeables.add(backend);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend, watchdogLease, false,
				new ObservationLockEventListener(this.observations), null);
		this.closeables.add(lock);
		return lock;
	}

	private io.micrometer.core.instrument.Timer acquireTimer(String result) {
		return this.meters.get("distributelock.acquire")
			.tags("backend", "redis", "lock.name", "account", "result", result)
			.timer();
	}

	private int holdsNow() {
		return this.meters.get("distributelock.hold.active")
			.tags("backend", "redis", "lock.name", "account")
			.longTaskTimer()
			.activeTasks();
	}

	private int zooKeeperHoldsNow() {
		return this.meters.get("distributelock.hold.active")
			.tags("backend", "zookeeper", "lock.name", "account")
			.longTaskTimer()
			.activeTasks();
	}

	private io.micrometer.core.instrument.Timer holdTimer(String outcome) {
		return this.meters.get("distributelock.hold")
			.tags("backend", "redis", "lock.name", "account", "outcome", outcome)
			.timer();
	}

	private double counter(String name) {
		return counter(name, "redis");
	}

	private double counter(String name, String backend) {
		return this.meters.find(name)
			.tags("backend", backend, "lock.name", "account")
			.counters()
			.stream()
			.mapToDouble(io.micrometer.core.instrument.Counter::count)
			.sum();
	}

	/** A store that cannot be reached. */
	private static final class FailingBackend implements LockBackend {

		@Override
		public String name() {
			return "failing";
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
		}

		@Override
		public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
			return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
		}

	}

}
