package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.github.distributelock.LockKindConflictException;
import org.jspecify.annotations.Nullable;

/**
 * Every kind of lock in this JVM's memory: the executable specification of what a store
 * does with each {@link LockKind}, which the store backends implement with scripts, nodes
 * and rows. Leases and waiter entries expire on {@link System#nanoTime()}.
 * <ul>
 * <li>exclusive: taken when the key has no holder; it ignores the fair queue, as nodes of
 * the original starter do.</li>
 * <li>fair: an attempt queues the claim (or refreshes its entry) and takes the key when
 * it has no holder and the claim heads the queue; release of a waiting claim leaves the
 * queue; a waiter whose entry is not refreshed for {@link #WAITER_LEASE} leaves it.</li>
 * <li>write: queued like a fair claim, and taken when there is neither holder nor reader;
 * readers do not pass a queued writer.</li>
 * <li>read: taken when no writer holds or waits.</li>
 * <li>permits: taken while fewer than N hold it.</li>
 * </ul>
 * Exclusive and fair are one family and wait for each other; a key held by one family
 * (exclusive, read/write, permits) and asked for by another fails the attempt with
 * {@link LockKindConflictException}.
 * <p>
 * Several exclusive keys are taken together, all or none, and released together
 * ({@link MultiKeyLockBackend}); the first held key is reported, as an attempt of it
 * alone would have.
 */
public class MemoryLockBackend implements MultiKeyLockBackend, LockStoreProbe {

	/** How long a waiter's entry lives without being refreshed by an attempt. */
	public static final Duration WAITER_LEASE = LockKind.WAITER_LEASE;

	/**
	 * Ends the waits that nothing ended before their deadline, and drops the timers of
	 * those that something did. Without an executor of its own,
	 * {@code CompletableFuture.delayedExecutor} starts a thread per wait on a machine of
	 * two cores, even for a wait long over.
	 */
	private static final ScheduledExecutorService TIMEOUTS = timeouts();

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, KeyState> keys = new HashMap<>();

	private final AtomicLong tokens = new AtomicLong();

	/**
	 * How many times a holder or waiter left any key, guarded by the lock: each key
	 * stamps its own changes with it ({@link KeyState#changed}).
	 */
	private long releases;

	@Override
	public String name() {
		return "memory";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		return locked(claim.key(), (state) -> state.attempt(claim, nanos(lease)));
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return locked(claim.key(), (state) -> state.renew(claim.owner(), nanos(lease)));
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return locked(claim.key(), (state) -> state.release(claim.owner()));
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		CompletableFuture<Void> changed = new CompletableFuture<>();
		this.lock.lock();
		try {
			KeyState state = state(claim.key());
			// A release of this key between the attempt and this wait was told to
			// nobody: the waiter attempts again at once. Releases of other keys are none
			// of its business: woken by each, waiters of a busy store spun.
			if (!(lastAttempt.hint() instanceof Long stamp) || stamp != state.changed) {
				return CompletableFuture.completedFuture(null);
			}
			state.waiters.add(changed);
		}
		finally {
			this.lock.unlock();
		}
		Future<?> timeout = TIMEOUTS.schedule(() -> changed.complete(null), deadline.remainingNanos(),
				TimeUnit.NANOSECONDS);
		changed.whenComplete((ended, failure) -> timeout.cancel(false));
		return changed;
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return claims.stream().allMatch((claim) -> claim.kind().type() == LockKind.Type.EXCLUSIVE);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		return lockedAll(claims, (states) -> {
			for (int i = 0; i < states.size(); i++) {
				KeyState state = states.get(i);
				state.conflictWith(claims.get(i).kind());
				if (state.exclusive != null || !state.shared.isEmpty()) {
					// The hint of a single attempt: without it, every wait after
					// this attempt ended at once, and the request spun until the
					// key was free.
					return MultiKeyAcquireResult.heldByAnother(i, AcquireResult.heldByAnother(null, state.changed));
				}
			}
			List<Long> tokens = new ArrayList<>();
			for (int i = 0; i < states.size(); i++) {
				tokens.add(states.get(i).attempt(claims.get(i), nanos(leases.get(i))).fencingToken());
			}
			return MultiKeyAcquireResult.acquired(tokens);
		});
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		return lockedAll(claims, (states) -> {
			List<Boolean> released = new ArrayList<>();
			for (int i = 0; i < states.size(); i++) {
				released.add(states.get(i).release(claims.get(i).owner()));
			}
			return released;
		});
	}

	@Override
	public void probe() {
	}

	/** Whether anyone holds {@code key}, exclusively or shared. */
	public boolean isLocked(String key) {
		return this.<Boolean>locked(key, (state) -> state.exclusiveOwner() != null || !state.shared.isEmpty()).join();
	}

	/** How many waiters are queued on {@code key}. */
	public int queued(String key) {
		return this.<Integer>locked(key, (state) -> state.queue.size()).join();
	}

	/** How many hold {@code key} at once. */
	public int holders(String key) {
		return this.<Integer>locked(key, (state) -> state.shared.size() + ((state.exclusiveOwner() != null) ? 1 : 0))
			.join();
	}

	private <T> CompletableFuture<T> locked(String key, Function<KeyState, T> work) {
		return lockedAll(List.of(new Claim(key, "")), (states) -> work.apply(states.get(0)));
	}

	/** Runs {@code work} on the state of each claim's key, all under the one lock. */
	private <T> CompletableFuture<T> lockedAll(List<Claim> claims, Function<List<KeyState>, T> work) {
		List<CompletableFuture<Void>> wake = new ArrayList<>();
		T result;
		this.lock.lock();
		try {
			List<KeyState> states = new ArrayList<>();
			long releasesBefore = this.releases;
			for (Claim claim : claims) {
				KeyState state = state(claim.key());
				state.expire(System.nanoTime());
				states.add(state);
			}
			try {
				result = work.apply(states);
			}
			finally {
				for (KeyState state : states) {
					// Only a change of the key can let a waiter in, as only one reaches
					// a waiter of a store: woken by every attempt, two waiters of a key
					// woke each other again and again until it was free.
					if (state.changed > releasesBefore) {
						wake.addAll(state.waiters);
						state.waiters.clear();
					}
					if (state.isEmpty()) {
						this.keys.remove(state.key);
					}
				}
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		finally {
			this.lock.unlock();
		}
		wake.forEach((waiter) -> waiter.complete(null));
		return CompletableFuture.completedFuture(result);
	}

	private KeyState state(String key) {
		return this.keys.computeIfAbsent(key, KeyState::new);
	}

	private static ScheduledExecutorService timeouts() {
		ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "memory-lock-backend-timeouts");
			thread.setDaemon(true);
			return thread;
		});
		timeouts.setRemoveOnCancelPolicy(true);
		return timeouts;
	}

	private static long nanos(Duration duration) {
		return Deadline.saturatedNanos(duration);
	}

	private final class KeyState {

		final String key;

		@Nullable Holder exclusive;

		final Map<String, Holder> shared = new LinkedHashMap<>();

		final LinkedHashMap<String, Waiter> queue = new LinkedHashMap<>();

		final List<CompletableFuture<Void>> waiters = new ArrayList<>();

		/**
		 * The count of releases at this key's last change (a holder or waiter left it, or
		 * a lease was cut), guarded by the lock: an attempt that failed passes it to the
		 * wait after it, which a change in between ends at once. A key's state created
		 * anew starts from the count of that moment, never from one an old wait holds.
		 */
		long changed;

		KeyState(String key) {
			this.key = key;
			this.changed = ++MemoryLockBackend.this.releases;
		}

		@Nullable String exclusiveOwner() {
			return (this.exclusive != null) ? this.exclusive.owner : null;
		}

		boolean isEmpty() {
			return this.exclusive == null && this.shared.isEmpty() && this.queue.isEmpty() && this.waiters.isEmpty();
		}

		void expire(long now) {
			if (this.exclusive != null && now - this.exclusive.expiresAt >= 0) {
				this.exclusive = null;
				changed();
			}
			if (this.shared.values().removeIf((holder) -> now - holder.expiresAt >= 0)
					| this.queue.values().removeIf((waiter) -> now - waiter.expiresAt >= 0)) {
				changed();
			}
		}

		AcquireResult attempt(Claim claim, long leaseNanos) {
			LockKind kind = claim.kind();
			conflictWith(kind);
			long now = System.nanoTime();
			boolean free = this.exclusive == null && this.shared.isEmpty();
			switch (kind.type()) {
				case EXCLUSIVE -> {
					if (free) {
						return hold(claim, leaseNanos, now, false);
					}
				}
				case FAIR, WRITE -> {
					this.queue.computeIfAbsent(claim.owner(), (owner) -> new Waiter(kind)).expiresAt = now
							+ nanos(WAITER_LEASE);
					boolean head = this.queue.keySet().iterator().next().equals(claim.owner());
					if (free && head) {
						this.queue.remove(claim.owner());
						return hold(claim, leaseNanos, now, false);
					}
				}
				case READ -> {
					boolean writerWaits = this.queue.values()
						.stream()
						.anyMatch((w) -> w.kind.type() == LockKind.Type.WRITE);
					if (this.exclusive == null && !writerWaits) {
						return hold(claim, leaseNanos, now, true);
					}
				}
				case PERMITS -> {
					if (this.exclusive == null && this.shared.size() < kind.permits()) {
						return hold(claim, leaseNanos, now, true);
					}
				}
			}
			AcquireResult held = AcquireResult.heldByAnother(holdersLeaseRemaining(now), this.changed);
			// Readers and permit callers never queue here, as on Redis and JDBC.
			return kind.shared() ? held.notQueued() : held;
		}

		/** Counts a release (or a cut lease) of this key and stamps the key with it. */
		private void changed() {
			this.changed = ++MemoryLockBackend.this.releases;
		}

		/**
		 * When the key's last holder's lease ends, as Redis's {@code PTTL} of the lock
		 * word tells: a waiter is woken then, since nothing announces an expiry.
		 */
		private @Nullable Duration holdersLeaseRemaining(long now) {
			long latest = (this.exclusive != null) ? this.exclusive.expiresAt : now;
			for (Holder holder : this.shared.values()) {
				latest = (holder.expiresAt - latest > 0) ? holder.expiresAt : latest;
			}
			return (latest - now > 0) ? Duration.ofNanos(latest - now) : null;
		}

		private void conflictWith(LockKind kind) {
			LockKind held = (this.exclusive != null) ? this.exclusive.kind
					: (!this.shared.isEmpty()) ? this.shared.values().iterator().next().kind : null;
			if (held != null && family(held) != family(kind)
					|| (held != null && held.type() == LockKind.Type.PERMITS && !held.equals(kind))) {
				throw new LockKindConflictException("Lock '" + this.key + "' is held as " + held.withArticle()
						+ " lock and was asked for as " + kind.withArticle() + " lock", this.key, name());
			}
		}

		private int family(LockKind kind) {
			return switch (kind.type()) {
				case EXCLUSIVE, FAIR -> 0;
				case READ, WRITE -> 1;
				case PERMITS -> 2;
			};
		}

		private AcquireResult hold(Claim claim, long leaseNanos, long now, boolean shared) {
			Holder holder = new Holder(claim.owner(), claim.kind(), now + leaseNanos);
			if (shared) {
				this.shared.put(claim.owner(), holder);
			}
			else {
				this.exclusive = holder;
			}
			return AcquireResult.acquired(MemoryLockBackend.this.tokens.incrementAndGet());
		}

		boolean renew(String owner, long leaseNanos) {
			Holder holder = (this.exclusive != null && this.exclusive.owner.equals(owner)) ? this.exclusive
					: this.shared.get(owner);
			if (holder == null) {
				return false;
			}
			long expiresAt = System.nanoTime() + leaseNanos;
			if (expiresAt - holder.expiresAt < 0) {
				// A lease cut shorter is told to waiters as a release is (Redis publishes
				// it): they timed their wait by the longer one.
				changed();
			}
			holder.expiresAt = expiresAt;
			return true;
		}

		boolean release(String owner) {
			changed();
			this.queue.remove(owner);
			if (this.exclusive != null && this.exclusive.owner.equals(owner)) {
				this.exclusive = null;
				return true;
			}
			return this.shared.remove(owner) != null;
		}

	}

	private static final class Holder {

		final String owner;

		final LockKind kind;

		long expiresAt;

		Holder(String owner, LockKind kind, long expiresAt) {
			this.owner = owner;
			this.kind = kind;
			this.expiresAt = expiresAt;
		}

	}

	private static final class Waiter {

		final LockKind kind;

		long expiresAt;

		Waiter(LockKind kind) {
			this.kind = kind;
		}

	}

}
