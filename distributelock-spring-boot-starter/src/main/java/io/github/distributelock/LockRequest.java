package io.github.distributelock;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What one call for a lock asks for: the key, how long to wait, the lease, the name the
 * lock carries in metrics, and the kind of lock: exclusive (the default), fair, read or
 * write, permits, or several keys at once ({@link #all(LockRequest...)}), and for
 * scheduled work a minimum hold and whether a busy lock means a skip. Immutable: each
 * {@code with} method returns a copy. <pre class="code">
 * LockRequest request = LockRequest.of("account:" + id).withWaitTime(Duration.ofSeconds(5));
 * try (LockHandle lock = distributeLock.tryAcquire(request).orElseThrow()) { ... }
 * </pre>
 *
 * @since 1.0.0
 */
public final class LockRequest {

	/** The longest fixed lease, as the stores take it in milliseconds. */
	private static final Duration LONGEST_LEASE = Duration.ofMillis(Long.MAX_VALUE);

	private final String key;

	private final @Nullable String name;

	private final Duration waitTime;

	private final @Nullable Duration leaseTime;

	private final @Nullable String owner;

	private final LockMode mode;

	private final boolean fair;

	private final int permits;

	private final List<LockRequest> parts;

	private final Duration minimumHold;

	private final boolean skipWhenBusy;

	private LockRequest(String key, @Nullable String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable String owner, LockMode mode, boolean fair, int permits, List<LockRequest> parts,
			Duration minimumHold, boolean skipWhenBusy) {
		this.key = key;
		this.name = name;
		this.waitTime = waitTime;
		this.leaseTime = leaseTime;
		this.owner = owner;
		this.mode = mode;
		this.fair = fair;
		this.permits = permits;
		this.parts = parts;
		this.minimumHold = minimumHold;
		this.skipWhenBusy = skipWhenBusy;
	}

	private LockRequest copy(String key, @Nullable String name, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable String owner) {
		return new LockRequest(key, name, waitTime, leaseTime, owner, this.mode, this.fair, this.permits, this.parts,
				this.minimumHold, this.skipWhenBusy);
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
		return new LockRequest(key, null, Duration.ZERO, null, null, LockMode.EXCLUSIVE, false, 0, List.of(),
				Duration.ZERO, false);
	}

	/**
	 * A request for several keys, taken all or nothing under one deadline: in one global
	 * order of their keys, so that two callers with overlapping sets never deadlock, and
	 * released in the reverse order. Each part keeps its own kind; the wait time and the
	 * owner are the combined request's ({@link #withWaitTime}); a part without a name, a
	 * lease or a minimum hold of its own takes the combined request's, and a combined
	 * request that skips when busy skips for every part. If one key is not taken in time,
	 * the ones taken are released and none is held.
	 * @param parts a request per key, at least one, no key twice
	 * @return the combined request, whose {@link #key()} joins the keys with commas
	 * @throws IllegalArgumentException if there is no part, a part is null, is itself
	 * combined or carries an owner value, or a key comes twice
	 */
	public static LockRequest all(LockRequest... parts) {
		if (parts == null || parts.length == 0) {
			throw new IllegalArgumentException(
					"A multi-key request needs at least one key; pass LockRequest.of(key) " + "for each key to take");
		}
		// Built on every call of a method that locks several keys: no joiner, and a set
		// sized once.
		Set<String> keys = new HashSet<>(parts.length * 2);
		StringBuilder joined = new StringBuilder(parts.length * 16);
		for (int i = 0; i < parts.length; i++) {
			LockRequest part = parts[i];
			if (part == null) {
				throw new IllegalArgumentException("Part " + (i + 1) + " of a multi-key request is null; pass "
						+ "LockRequest.of(key) for each key to take");
			}
			if (part.isMultiKey()) {
				throw new IllegalArgumentException(
						"A multi-key request cannot contain another one (" + part.key() + "); list its keys directly");
			}
			if (part.owner() != null) {
				throw new IllegalArgumentException("A part of a multi-key request (" + part.key() + ") carries an "
						+ "owner value of its own; the owner is the combined request's: call withOwner on "
						+ "LockRequest.all(...) instead");
			}
			if (!keys.add(part.key())) {
				throw new IllegalArgumentException("The key '" + part.key() + "' comes twice in one multi-key "
						+ "request; a key can only be taken once, with one kind");
			}
			joined.append((joined.length() > 0) ? "," : "").append(part.key());
		}
		return new LockRequest(joined.toString(), null, Duration.ZERO, null, null, LockMode.EXCLUSIVE, false, 0,
				List.of(parts), Duration.ZERO, false);
	}

	/**
	 * A copy in the given mode: exclusive, or one of a read/write pair on the key.
	 * @param mode the mode
	 * @return the new request
	 * @throws IllegalArgumentException if the mode is null, or not exclusive on a
	 * multi-key request, whose parts each have their own
	 */
	public LockRequest withMode(LockMode mode) {
		if (mode == null) {
			throw new IllegalArgumentException("mode must not be null; use LockMode.EXCLUSIVE for a plain lock");
		}
		if (mode != LockMode.EXCLUSIVE) {
			refuseKindOfMultiKey("mode " + mode);
		}
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.owner, mode, this.fair,
				this.permits, this.parts, this.minimumHold, this.skipWhenBusy);
	}

	/**
	 * A copy whose waiters, in every instance, get the lock in the order they asked for
	 * it; a waiter that gives up or crashes leaves the queue.
	 * @param fair whether waiters are served in arrival order
	 * @return the new request
	 * @throws IllegalArgumentException if {@code fair} is set on a multi-key request,
	 * whose parts each have their own kind
	 */
	public LockRequest withFair(boolean fair) {
		if (fair) {
			refuseKindOfMultiKey("fair");
		}
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.owner, this.mode, fair,
				this.permits, this.parts, this.minimumHold, this.skipWhenBusy);
	}

	/**
	 * A copy that takes one of {@code permits} permits of the key: at most that many
	 * holders at once (a semaphore whose holders each have a lease, a watchdog and a
	 * fencing token; a holder that crashes gives its permit back when its lease ends).
	 * @param permits how many holders the key allows, at least 1
	 * @return the new request
	 * @throws IllegalArgumentException if {@code permits} is below 1, or set on a
	 * multi-key request, whose parts each have their own kind
	 */
	public LockRequest withPermits(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException(
					"permits must be at least 1 (how many holders the key allows at once), was " + permits);
		}
		refuseKindOfMultiKey("permits " + permits);
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.owner, this.mode, this.fair,
				permits, this.parts, this.minimumHold, this.skipWhenBusy);
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
		return copy(this.key, this.name, waitTime, this.leaseTime, this.owner);
	}

	/**
	 * A copy with a fixed lease, never renewed, or with a lease the watchdog renews.
	 * <p>
	 * <b>Note:</b> a reentrant entry (the thread that holds the key asks for it again)
	 * joins the hold that is open and inherits its lease and minimum hold; its own are
	 * ignored, neither lengthening nor shortening the lock. An entry that asks for the
	 * watchdog inside a hold with a fixed lease is therefore lost, with the outer hold,
	 * when that lease runs out; ask for the longest lease at the outermost entry.
	 * @param leaseTime the fixed lease, at least 1 ms, or {@code null} for a lease
	 * renewed by the watchdog until the handle is closed
	 * @return the new request
	 * @throws IllegalArgumentException if the lease is under 1 ms or over
	 * {@link Long#MAX_VALUE} ms, or shorter than the minimum hold, or than that of a part
	 * of a multi-key request that sets no lease
	 */
	public LockRequest withLeaseTime(@Nullable Duration leaseTime) {
		if (leaseTime != null && leaseTime.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("leaseTime must be at least 1 ms, was " + leaseTime
					+ "; pass null for a lease renewed by the watchdog");
		}
		// The stores take the lease in milliseconds.
		if (leaseTime != null && leaseTime.truncatedTo(ChronoUnit.MILLIS).compareTo(LONGEST_LEASE) > 0) {
			throw new IllegalArgumentException("leaseTime must be at most Long.MAX_VALUE ms (" + LONGEST_LEASE
					+ "), was " + leaseTime + "; pass null for a lease renewed by the watchdog");
		}
		checkMinimumHoldFits(this.minimumHold, leaseTime);
		checkPartsFit(this.parts, this.minimumHold, leaseTime);
		return copy(this.key, this.name, this.waitTime, leaseTime, this.owner);
	}

	/**
	 * A copy named {@code name} in metrics and traces. The name should be fixed text such
	 * as {@code "account"}, never a value such as an id: it becomes a metric tag. Without
	 * one, the lock is named by the key's leading letters.
	 * @param name the lock name, or {@code null} to derive it from the key
	 * @return the new request
	 * @throws IllegalArgumentException if the name is blank
	 */
	public LockRequest withName(@Nullable String name) {
		if (name != null && name.isBlank()) {
			throw new IllegalArgumentException("The lock name is blank (\"" + name + "\"), which would tag the "
					+ "lock's metrics and traces with nothing; give a fixed name such as \"account\", or null to "
					+ "name the lock by its key's leading letters");
		}
		return copy(this.key, name, this.waitTime, this.leaseTime, this.owner);
	}

	/**
	 * A copy owned by a value the caller chose instead of by the handle: the lock is not
	 * reentrant, and {@link DistributeLock#releaseLock(String, String)} with that value
	 * releases it from any thread of the instance that holds it. A plain (exclusive) lock
	 * it releases from any instance too, as the original starter's
	 * {@code tryLock(key, value, ...)} did; a fair, read/write or permit lock only from
	 * the instance that holds it, as the store keeps such holders by kind. One value
	 * names one holder: a fair, read/write or permit lock asked for with the value of a
	 * claim of the same key that holds or waits in this instance is refused with
	 * {@link IllegalArgumentException}, as the store could not tell the two apart.
	 * @param owner the owner value, not empty
	 * @return the new request
	 * @throws IllegalArgumentException if the owner is null or empty
	 */
	public LockRequest withOwner(String owner) {
		if (owner == null || owner.isEmpty()) {
			throw new IllegalArgumentException("lockValue must not be null or empty: it is the owner of the lock");
		}
		return copy(this.key, this.name, this.waitTime, this.leaseTime, owner);
	}

	/**
	 * A copy whose lock stays in the store at least {@code minimumHold} after it was
	 * taken, ShedLock's {@code lockAtLeastFor}: closing the handle earlier gives the lock
	 * up in this JVM at once, but leaves it in the store until the minimum hold has
	 * passed, so that another instance whose schedule fires a little later does not run
	 * the same work again. A store with leases (Redis, JDBC) gets an owner-checked
	 * renewal for the rest of the minimum hold instead of a release, so the lock also
	 * ends then if this JVM dies; on ZooKeeper, which has no leases, the release is sent
	 * when the minimum hold has passed (or earlier, when the lock service shuts down and
	 * its session ends anyway).
	 * <p>
	 * The minimum hold applies when the holder closes its last handle. A lock given back
	 * because its caller was interrupted or cancelled before it got the handle, released
	 * by {@link DistributeLock#releaseLock(String, String)}, or released by the shutdown
	 * of the lock service is released at once. A lock lost while held is not kept. A
	 * reentrant entry inherits the minimum hold of the outermost one, as its lease
	 * ({@link #withLeaseTime(Duration)}).
	 * @param minimumHold how long after it was taken the lock stays in the store at
	 * least; {@link Duration#ZERO} (the default) for none
	 * @return the new request
	 * @throws IllegalArgumentException if the minimum hold is null or negative, or longer
	 * than a fixed lease, or than that of a part of a multi-key request that sets no
	 * minimum hold
	 * @since 1.0.0
	 */
	public LockRequest withMinimumHold(Duration minimumHold) {
		if (minimumHold == null || minimumHold.isNegative()) {
			throw new IllegalArgumentException(
					"minimumHold must not be negative, was " + minimumHold + "; use 0 for no minimum hold");
		}
		checkMinimumHoldFits(minimumHold, this.leaseTime);
		checkPartsFit(this.parts, minimumHold, this.leaseTime);
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.owner, this.mode, this.fair,
				this.permits, this.parts, minimumHold, this.skipWhenBusy);
	}

	/**
	 * A copy that says whether the caller skips its work when the lock is busy, as a
	 * scheduled job does when another instance runs it: a lock not taken is then reported
	 * as skipped ({@code result=skipped} in metrics, a DEBUG line that says so) instead
	 * of as a wait that timed out. It changes nothing else: the call still returns an
	 * empty {@link java.util.Optional}.
	 * @param skipWhenBusy whether a busy lock means the caller skips its work
	 * @return the new request
	 * @since 1.0.0
	 */
	public LockRequest withSkipWhenBusy(boolean skipWhenBusy) {
		return new LockRequest(this.key, this.name, this.waitTime, this.leaseTime, this.owner, this.mode, this.fair,
				this.permits, this.parts, this.minimumHold, skipWhenBusy);
	}

	/**
	 * Refuses a kind set on a multi-key request, which would be ignored: each part is
	 * taken with its own.
	 */
	private void refuseKindOfMultiKey(String kind) {
		if (isMultiKey()) {
			throw new IllegalArgumentException("The multi-key request " + this.key + " cannot take " + kind
					+ "; each key of a multi-key request is taken with its own kind: set it on the parts, such as "
					+ "LockRequest.all(LockRequest.of(\"a\").withMode(LockMode.READ), ...)");
		}
	}

	/**
	 * Checks the lease and minimum hold each part of a multi-key request is taken with
	 * (its own, or else the combined request's) as one key's are checked, so that a part
	 * that could not be taken is refused now, not once some keys are taken.
	 */
	private static void checkPartsFit(List<LockRequest> parts, Duration minimumHold, @Nullable Duration leaseTime) {
		for (LockRequest part : parts) {
			Duration partLease = (part.leaseTime != null) ? part.leaseTime : leaseTime;
			Duration partHold = (!part.minimumHold.isZero()) ? part.minimumHold : minimumHold;
			if (partLease != null && partHold.compareTo(partLease) > 0) {
				throw new IllegalArgumentException("The key '" + part.key + "' of a multi-key request would be taken "
						+ "with a minimumHold (" + partHold + ") that must not be longer than the fixed leaseTime ("
						+ partLease + "), one set on the key and the other on the combined request; set both on the "
						+ "key, lengthen the lease or shorten the minimum hold");
			}
		}
	}

	private static void checkMinimumHoldFits(Duration minimumHold, @Nullable Duration leaseTime) {
		if (leaseTime != null && minimumHold.compareTo(leaseTime) > 0) {
			throw new IllegalArgumentException("minimumHold (" + minimumHold + ") must not be longer than the fixed "
					+ "leaseTime (" + leaseTime + "), after which the store frees the lock anyway; "
					+ "lengthen the lease or shorten the minimum hold");
		}
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

	/**
	 * The mode: exclusive, read or write.
	 * @return the mode
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Whether waiters are served in arrival order.
	 * @return whether the lock is fair
	 */
	public boolean fair() {
		return this.fair;
	}

	/**
	 * How many holders the key allows at once, or {@code 0} when it is not a permit
	 * request.
	 * @return the permits
	 */
	public int permits() {
		return this.permits;
	}

	/**
	 * Whether this request takes several keys at once.
	 * @return whether it was made by {@link #all(LockRequest...)}
	 */
	public boolean isMultiKey() {
		return !this.parts.isEmpty();
	}

	/**
	 * The requests of a multi-key request, as given.
	 * @return the parts, empty for a single key
	 */
	public List<LockRequest> parts() {
		return this.parts;
	}

	/**
	 * How long after it was taken the lock stays in the store at least.
	 * @return the minimum hold, {@link Duration#ZERO} for none
	 * @since 1.0.0
	 */
	public Duration minimumHold() {
		return this.minimumHold;
	}

	/**
	 * Whether the caller skips its work when the lock is busy.
	 * @return whether a busy lock is reported as a skip
	 * @since 1.0.0
	 */
	public boolean skipsWhenBusy() {
		return this.skipWhenBusy;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof LockRequest that && this.key.equals(that.key) && Objects.equals(this.name, that.name)
				&& this.waitTime.equals(that.waitTime) && Objects.equals(this.leaseTime, that.leaseTime)
				&& Objects.equals(this.owner, that.owner) && this.mode == that.mode && this.fair == that.fair
				&& this.permits == that.permits && this.parts.equals(that.parts)
				&& this.minimumHold.equals(that.minimumHold) && this.skipWhenBusy == that.skipWhenBusy;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.key, this.name, this.waitTime, this.leaseTime, this.owner, this.mode, this.fair,
				this.permits, this.parts, this.minimumHold, this.skipWhenBusy);
	}

	@Override
	public String toString() {
		return "LockRequest[key=" + this.key + ", name=" + this.name + ", waitTime=" + this.waitTime + ", leaseTime="
				+ this.leaseTime + ((this.owner != null) ? ", owner set" : "") + ", mode=" + this.mode
				+ ((this.fair) ? ", fair" : "") + ((this.permits > 0) ? ", permits=" + this.permits : "")
				+ (this.minimumHold.isZero() ? "" : ", minimumHold=" + this.minimumHold)
				+ (this.skipWhenBusy ? ", skipWhenBusy" : "") + "]";
	}

}
