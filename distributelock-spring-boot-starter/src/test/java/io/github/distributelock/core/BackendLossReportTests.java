package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * How {@link DefaultDistributeLock} handles the losses a backend reports through
 * {@link LockLossListener}, on an in-memory backend whose locks live as long as its
 * session.
 */
class BackendLossReportTests {

	private final SessionMemoryLockBackend backend = new SessionMemoryLockBackend();

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.backend, Duration.ofSeconds(30), true,
			LockEventListener.NONE, null);

	@AfterEach
	void close() {
		this.lock.close();
		this.backend.close();
	}

	@Test
	void registersWithItsBackendAndUnregistersAtClose() {
		assertThat(this.backend.listeners).hasSize(1);
		this.lock.close();
		assertThat(this.backend.listeners).isEmpty();
	}

	@Test
	void reportedLossMarksEveryHeldLockLost() throws Exception {
		LockHandle first = this.lock.tryAcquire("first", Duration.ZERO, null).orElseThrow();
		LockHandle second = this.lock.tryAcquire("second", Duration.ZERO, Duration.ofMinutes(1)).orElseThrow();
		AtomicInteger told = new AtomicInteger();
		first.onLost((handle) -> told.incrementAndGet());
		second.onLost((handle) -> told.incrementAndGet());
		this.backend.expireSession();
		assertThat(first.isHeld()).isFalse();
		assertThat(second.isHeld()).isFalse();
		// Told on the lock service's thread for lost-lock listeners, not the backend's.
		await().atMost(Duration.ofSeconds(10)).until(() -> told.get() == 2);
		assertThat(this.lock.lostLockCount()).isEqualTo(2);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::close).withMessageContaining("first");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(second::close).withMessageContaining("second");
		assertThat(this.lock.tryAcquire("first", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void lossReportedWhileALockIsBeingAcquiredMarksItLost() throws Exception {
		this.backend.expireSessionAfterNextAcquire = true;
		LockHandle handle = this.lock.tryAcquire("racing", Duration.ZERO, null).orElseThrow();
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.lock.lostLockCount()).isOne();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	@Test
	void locksAtRiskAreStillHeldButSuspectUntilTheConnectionIsBack() throws Exception {
		try (LockHandle handle = this.lock.tryAcquire("suspect", Duration.ZERO, null).orElseThrow()) {
			assertThat(handle.isSuspect()).isFalse();
			this.backend.listeners.forEach((listener) -> listener.locksAtRisk("connection suspended"));
			assertThat(handle.isHeld()).isTrue();
			assertThat(handle.isSuspect()).isTrue();
			this.backend.listeners.forEach((listener) -> listener.locksSafe("connection back"));
			assertThat(handle.isSuspect()).isFalse();
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(this.lock.lostLockCount()).isZero();
	}

	@Test
	void lockLostAfterBeingAtRiskIsNoLongerSuspectButLost() throws Exception {
		LockHandle handle = this.lock.tryAcquire("suspect", Duration.ZERO, null).orElseThrow();
		this.backend.listeners.forEach((listener) -> listener.locksAtRisk("connection suspended"));
		this.backend.expireSession();
		assertThat(handle.isSuspect()).isFalse();
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	@Test
	void lossToldLateKeepsRetryingTheFailedReleaseOfALockTakenOnTheNewSession() throws Exception {
		LockHandle handle = this.lock.tryAcquire("late", Duration.ZERO, null).orElseThrow();
		this.backend.failNextRelease = true;
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(handle::close);
		// The loss of the session before this one, told after the lock of this one failed
		// its release: the store removed nothing of this session's.
		this.backend.listeners.forEach((listener) -> listener.locksLost("the session before expired"));
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.backend.locks.containsKey("late"));
	}

	@Test
	void retriedReleaseOfALockWhoseSessionEndedStopsAtTheStoresFirstAnswer() throws Exception {
		assertThat(this.lock.tryLock("gone", "same-owner", 0, -1)).isTrue();
		this.backend.failNextRelease = true;
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> this.lock.releaseLock("gone", "same-owner"));
		this.backend.expireSession();
		// The owner value is refused while its release is still to be sent.
		await().atMost(Duration.ofSeconds(10))
			.ignoreException(IllegalArgumentException.class)
			.until(() -> this.lock.tryLock("gone", "same-owner", 0, -1));
		assertThat(this.lock.releaseLock("gone", "same-owner")).isTrue();
	}

	@Test
	void fixedLeaseOfALockThatLivesWithTheSessionDoesNotRunOut() throws Exception {
		try (LockHandle handle = this.lock.tryAcquire("fixed", Duration.ZERO, Duration.ofMillis(1)).orElseThrow()) {
			AtomicInteger told = new AtomicInteger();
			handle.onLost((lost) -> told.incrementAndGet());
			assertThat(this.backend.locks).containsKey("fixed");
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(2))
				.until(() -> handle.isHeld() && told.get() == 0);
		}
		assertThat(this.lock.lostLockCount()).isZero();
	}

}
