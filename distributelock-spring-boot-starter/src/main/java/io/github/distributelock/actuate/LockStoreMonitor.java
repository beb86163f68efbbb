package io.github.distributelock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.ShardedLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * One round trip to the lock store that changes nothing, for the health indicator and the
 * check at startup. It remembers whether the store answered last time, so that its
 * callers can report a change once instead of every failed probe.
 *
 * @since 1.0.0
 */
public class LockStoreMonitor {

	private static final Log logger = LogFactory.getLog(LockStoreMonitor.class);

	private final LockBackend backend;

	private final @Nullable String address;

	private final AtomicReference<State> state = new AtomicReference<>(State.UNKNOWN);

	/**
	 * Creates a probe.
	 * @param backend the store to probe
	 * @param address where the store is, for messages, such as {@code 127.0.0.1:6379},
	 * without credentials; {@code null} if unknown
	 */
	public LockStoreMonitor(LockBackend backend, @Nullable String address) {
		this.backend = backend;
		this.address = address;
	}

	/**
	 * The name of the backend, such as {@code redis}.
	 * @return the backend name
	 */
	public String backendName() {
		return this.backend.name();
	}

	/**
	 * The store for messages: the backend name and, if known, where it is, such as
	 * {@code redis at 127.0.0.1:6379}.
	 * @return the store's description
	 */
	public String store() {
		return (this.address != null) ? this.backend.name() + " at " + this.address : this.backend.name();
	}

	/**
	 * Makes one round trip to the store, or to each of its shards when the backend is a
	 * {@link ShardedLockBackend}. A failure is logged at DEBUG with its stack trace;
	 * reporting it otherwise is the caller's choice.
	 * @return whether the store answered, and what the previous probe found
	 */
	public Result check() {
		long start = System.nanoTime();
		Map<String, ShardCheck> shards = Map.of();
		RuntimeException failure = null;
		if (this.backend instanceof ShardedLockBackend sharded) {
			shards = checkEach(sharded);
			failure = shardsDown(shards);
		}
		else {
			failure = probe(this.backend, this.backend.name());
		}
		Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);
		State previous = this.state.getAndSet((failure != null) ? State.DOWN : State.UP);
		if (failure != null && logger.isDebugEnabled()) {
			logger.debug("Lock store " + store() + " failed its probe", failure);
		}
		return new Result(failure, roundTrip, previous, shards);
	}

	private static @Nullable RuntimeException probe(Object store, String name) {
		try {
			if (!(store instanceof LockStoreProbe probe)) {
				throw new IllegalStateException("The " + name + " lock backend has no probe; implement "
						+ LockStoreProbe.class.getName() + " to check its store");
			}
			probe.probe();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	private static Map<String, ShardCheck> checkEach(ShardedLockBackend sharded) {
		Map<String, ShardCheck> shards = new LinkedHashMap<>();
		sharded.shardProbes().forEach((name, probe) -> {
			long start = System.nanoTime();
			RuntimeException failure = probe(probe, name);
			shards.put(name, new ShardCheck(failure, Duration.ofNanos(System.nanoTime() - start)));
		});
		return Collections.unmodifiableMap(shards);
	}

	private static @Nullable RuntimeException shardsDown(Map<String, ShardCheck> shards) {
		List<String> down = new ArrayList<>();
		RuntimeException failure = null;
		for (Map.Entry<String, ShardCheck> shard : shards.entrySet()) {
			RuntimeException shardFailure = shard.getValue().failure();
			if (shardFailure != null) {
				down.add(shard.getKey() + " (" + Result.message(shardFailure) + ")");
				failure = (failure != null) ? failure : shardFailure;
			}
		}
		return (failure != null) ? new IllegalStateException("Lock shards down: " + String.join(", ", down), failure)
				: null;
	}

	/**
	 * What a probe found about the store.
	 */
	public enum State {

		/**
		 * Not probed yet.
		 */
		UNKNOWN,

		/**
		 * The store answered.
		 */
		UP,

		/**
		 * The store did not answer, or answered with an error.
		 */
		DOWN

	}

	/**
	 * The outcome of one probe.
	 *
	 * @param failure why the store did not answer, or {@code null} if it did
	 * @param roundTrip how long the probe took
	 * @param previous what the probe before this one found
	 * @param shards what each shard's probe found, by the shard's name, when the backend
	 * has shards; empty otherwise
	 */
	public record Result(@Nullable RuntimeException failure, Duration roundTrip, State previous,
			Map<String, ShardCheck> shards) {

		/**
		 * The outcome of one probe of a store without shards.
		 * @param failure why the store did not answer, or {@code null} if it did
		 * @param roundTrip how long the probe took
		 * @param previous what the probe before this one found
		 */
		public Result(@Nullable RuntimeException failure, Duration roundTrip, State previous) {
			this(failure, roundTrip, previous, Map.of());
		}

		/**
		 * Whether the store answered.
		 * @return whether the store is up
		 */
		public boolean isUp() {
			return this.failure == null;
		}

		/**
		 * Whether this probe is the first to find the store down, since startup or since
		 * it was last up.
		 * @return whether the store went down
		 */
		public boolean wentDown() {
			return this.failure != null && this.previous != State.DOWN;
		}

		/**
		 * Whether the store answered after the previous probe had found it down.
		 * @return whether the store came back
		 */
		public boolean cameBack() {
			return this.failure == null && this.previous == State.DOWN;
		}

		/**
		 * Why the store did not answer, on one line: the failure's message and, if it has
		 * a different one, its root cause's.
		 * @return the reason, or an empty string if the store answered
		 */
		public String reason() {
			Throwable failure = this.failure;
			if (failure == null) {
				return "";
			}
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
			String message = message(failure);
			String causeMessage = message(cause);
			return (cause == failure || message.contains(causeMessage)) ? message : message + " (" + causeMessage + ")";
		}

		static String message(Throwable ex) {
			String message = ex.getMessage();
			// One line, as the callers log it without the stack trace.
			return (message != null && !message.isBlank()) ? message.strip().replaceAll("\\s*\\R\\s*", " ")
					: ex.getClass().getName();
		}

	}

	/**
	 * What the probe of one shard found.
	 *
	 * @param failure why the shard did not answer, or {@code null} if it did
	 * @param roundTrip how long its probe took
	 */
	public record ShardCheck(@Nullable RuntimeException failure, Duration roundTrip) {

	}

}
