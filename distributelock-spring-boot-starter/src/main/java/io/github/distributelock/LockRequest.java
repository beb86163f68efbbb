package io.github.distributelock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What one call for a lock asks for: the key, how long to wait, the lease, and the name
 * the lock carries in metrics. Immutable: each {@code with} method returns a copy.
 * <pre class="code">
 * LockRequest request = LockRequest.of("account:" + id).withWaitTime(Duration.ofSeconds(5));
 * try (LockHandle lock = distributeLock.tryAcquire(request).orElseThrow()) { ... }
 * </pre>
 *
 * @since 1.0.0
 */
public final class LockRequest {

	private final String key;

	private final @Nullable String name;

	private final Duration waitTime;

	private final @Nullable Duration leaseTime;

	private final @Nullable String owner;

	private LockRequest(String key, @Nullable String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable String owner) {
		this.key = key;
		this.name = name;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.owner = owner;
	}

	/**
	 * A request for {@code key} that makes one attempt, with a lease renewed by the
	 * watchdog until the handle is closed.
	 * @param key the lock key, not blank
	 * @return the request
	 * @throws IllegalArgumentException if the key is null or blank
	 */
	public static LockRequest of(String key) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("lockKey must not be null or blank");
		}
		return new LockRequest(key, null, Duration.ZERO, null, null);
	}

	/**
	 * A copy that waits up to {@code waitTime} for the lock.
	 * @param waitTime how long to wait; {@link Duration#ZERO} makes one attempt
	 * @return the new request
	 * @throws IllegalArgumentException if the wait time is null or negative
	 */
	public LockRequest withWaitTime(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException(
					"waitTime must not be negative, was " + waitTime + "; use 0 for a single attempt");
		}
		return new LockRequest(this.key, this.name, waitTime, this.leaseTime, this.owner);
	}

	/**
	 * A copy with a fixed lease, never renewed, or with a lease the watchdog renews.
	 * @param leaseTime the fixed lease, at least 1 ms, or {@code null} for a lease
	 * renewed by the watchdog until the handle is closed
	 * @return the new request
	 * @throws IllegalArgumentException if the lease is under 1 ms
	 */
	public LockRequest withLeaseTime(@Nullable Duration leaseTime) {
		if (leaseTime != null && (leaseTime.isNegative() || leaseTime.toMillis() < 1)) {
			throw new IllegalArgumentException("leaseTime must be at least 1 ms, was " + leaseTime
					+ "; pass null for a lease renewed by the watchdog");
		}
		return new LockRequest(this.key, this.name, this.waitTime, leaseTime, this.owner);
	}

	/**
	 * A copy named {@code name} in metrics and traces. The name should be fixed text such
	 * as {@code "account"}, never a value such as an id: it becomes a metric tag. Without
	 * one, the lock is named by the key's leading letters.
	 * @param name the lock name, or {@code null} to derive it from the key
	 * @return the new request
	 */
	public LockRequest withName(@Nullable String name) {
		return new LockRequest(this.key, name, this.waitTime, this.leaseTime, this.owner);
	}

	/**
	 * A copy owned by a value the caller chose instead of by the handle: the lock is not
	 * reentrant, and {@link DistributeLock#releaseLock(String, String)} with that value
	 * releases it from any thread or instance, as the original starter's
	 * {@code tryLock(key, value, ...)} did.
	 * @param owner the owner value, not empty
	 * @return the new request
	 * @throws IllegalArgumentException if the owner is null or empty
	 */
	public LockRequest withOwner(String owner) {
		if (owner == null || owner.isEmpty()) {
			throw new IllegalArgumentException("lockValue must not be null or empty: it is the owner of the lock");
		}
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, owner);
	}

	/**
	 * The lock key as given (before any store prefix).
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * The lock name for metrics, or {@code null} to derive it from the key.
	 * @return the name
	 */
	public @Nullable String name() {
		return this.name;
	}

	/**
	 * How long to wait for the lock.
	 * @return the wait time
	 */
	public Duration waitTime() {
		return this.waitTime;
	}

	/**
	 * The fixed lease, or {@code null} for a lease renewed by the watchdog.
	 * @return the lease
	 */
	public @Nullable Duration leaseTime() {
		return this.leaseTime;
	}

	/**
	 * The owner value the caller chose, or {@code null} when the handle owns the lock.
	 * @return the owner value
	 */
	public @Nullable String owner() {
		return this.owner;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof LockRequest that && this.key.equals(that.key) && Objects.equals(this.name, that.name)
				&& this.waitTime.equals(that.waitTime) && Objects.equals(this.leaseTime, that.leaseTime)
				&& Objects.equals(this.owner, that.owner);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.key, this.name, this.waitTime, this.leaseTime, this.owner);
	}

	@Override
	public String toString() {
		return "LockRequest[key=" + this.key + ", name=" + this.name + ", waitTime=" + this.waitTime + ", leaseTime="
				+ this.leaseTime + ((this.owner != null) ? ", owner set" : "") + "]";
	}

}
