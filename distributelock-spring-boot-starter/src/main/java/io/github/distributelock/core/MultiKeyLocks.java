package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Several keys taken all or nothing under one deadline, composed over the single-key
 * acquisitions of the engine: in one global order (the keys' natural order, the same in
 * every JVM), so that two callers whose sets overlap never wait for each other in a
 * cycle, and released in the reverse order. If one key is not taken in time, or fails,
 * the keys taken so far are released before the caller hears of it.
 */
final class MultiKeyLocks {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private final DefaultDistributeLock lock;

	MultiKeyLocks(DefaultDistributeLock lock) {
		this.lock = lock;
	}

	Optional<LockHandle> tryAcquire(LockRequest request) throws InterruptedException {
		Deadline deadline = Deadline.after(request.waitTime());
		List<LockHandle> taken = new ArrayList<>();
		try {
			for (LockRequest part : ordered(request)) {
				Optional<LockHandle> handle = this.lock.tryAcquire(part(request, part, deadline));
				if (handle.isEmpty()) {
					closeInReverse(taken);
					return Optional.empty();
				}
				taken.add(handle.get());
			}
		}
		catch (InterruptedException | RuntimeException ex) {
			closeInReverse(taken);
			throw ex;
		}
		return Optional.of(new MultiKeyHandle(request.key(), taken));
	}

	CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request) {
		Deadline deadline = Deadline.after(request.waitTime());
		List<LockHandle> taken = new ArrayList<>();
		CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
		takeNext(request, ordered(request), 0, deadline, taken, result);
		return result;
	}

	private void takeNext(LockRequest request, List<LockRequest> parts, int index, Deadline deadline,
			List<LockHandle> taken, CompletableFuture<Optional<LockHandle>> result) {
		if (index == parts.size()) {
			if (!result.complete(Optional.of(new MultiKeyHandle(request.key(), taken)))) {
				releaseInReverse(taken);
			}
			return;
		}
		if (result.isDone()) {
			releaseInReverse(taken);
			return;
		}
		CompletableFuture<Optional<LockHandle>> next = this.lock
			.tryAcquireAsync(part(request, parts.get(index), deadline));
		result.whenComplete((done, failure) -> {
			if (result.isCancelled()) {
				next.cancel(false);
			}
		});
		next.whenComplete((handle, failure) -> {
			if (failure != null || handle.isEmpty()) {
				releaseInReverse(taken).whenComplete((released, releaseFailure) -> {
					if (failure != null) {
						result.completeExceptionally(StoreCalls.unwrap(failure));
					}
					else {
						result.complete(Optional.empty());
					}
				});
				return;
			}
			taken.add(handle.get());
			takeNext(request, parts, index + 1, deadline, taken, result);
		});
	}

	private static List<LockRequest> ordered(LockRequest request) {
		return request.parts().stream().sorted(Comparator.comparing(LockRequest::key)).toList();
	}

	/** A part with what is left of the combined wait, and the combined owner and name. */
	private static LockRequest part(LockRequest request, LockRequest part, Deadline deadline) {
		LockRequest waiting = part.withWaitTime(deadline.remaining());
		if (request.owner() != null) {
			waiting = waiting.withOwner(request.owner());
		}
		return (part.name() == null && request.name() != null) ? waiting.withName(request.name()) : waiting;
	}

	/** Releases on the caller's thread, which a blocking store may need. */
	private static void closeInReverse(List<LockHandle> taken) {
		for (int i = taken.size() - 1; i >= 0; i--) {
			LockHandle handle = taken.get(i);
			try {
				handle.close();
			}
			catch (RuntimeException ex) {
				logNotReleased(handle, ex);
			}
		}
	}

	/** Completes once every release has ended, failed ones logged. */
	private static CompletableFuture<Void> releaseInReverse(List<LockHandle> taken) {
		CompletableFuture<?>[] releases = new CompletableFuture<?>[taken.size()];
		for (int i = taken.size() - 1; i >= 0; i--) {
			LockHandle handle = taken.get(i);
			releases[i] = handle.releaseAsync().exceptionally((failure) -> {
				logNotReleased(handle, failure);
				return null;
			});
		}
		return CompletableFuture.allOf(releases);
	}

	private static void logNotReleased(LockHandle handle, Throwable failure) {
		// The store retries a failed release in the background until the lease ends.
		logger.warn("Could not release lock '" + handle.key() + "' of a multi-key request that was not taken whole",
				failure);
	}

	/**
	 * The handle of several keys: closed once, in the reverse order of acquisition; held
	 * while every key is; lost when any key is.
	 */
	static final class MultiKeyHandle implements LockHandle {

		private final String key;

		private final List<LockHandle> handles;

		private final AtomicBoolean closed = new AtomicBoolean();

		MultiKeyHandle(String key, List<LockHandle> handles) {
			this.key = key;
			this.handles = List.copyOf(handles);
		}

		/**
		 * The handles of the keys, in the order they were taken.
		 * @return the handles
		 */
		List<LockHandle> handles() {
			return this.handles;
		}

		@Override
		public String key() {
			return this.key;
		}

		/**
		 * The highest fencing token of the keys; each key's own token is on its handle.
		 */
		@Override
		public long fencingToken() {
			return this.handles.stream().mapToLong(LockHandle::fencingToken).max().orElse(0);
		}

		@Override
		public boolean isHeld() {
			return !this.closed.get() && this.handles.stream().allMatch(LockHandle::isHeld);
		}

		@Override
		public boolean isSuspect() {
			return isHeld() && this.handles.stream().anyMatch(LockHandle::isSuspect);
		}

		@Override
		public LockHandle onLost(Consumer<LockHandle> listener) {
			AtomicBoolean told = new AtomicBoolean();
			for (LockHandle handle : this.handles) {
				handle.onLost((lost) -> {
					if (told.compareAndSet(false, true)) {
						listener.accept(this);
					}
				});
			}
			return this;
		}

		@Override
		public CompletableFuture<Void> releaseAsync() {
			if (!this.closed.compareAndSet(false, true)) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<Void> released = CompletableFuture.completedFuture(null);
			for (int i = this.handles.size() - 1; i >= 0; i--) {
				LockHandle handle = this.handles.get(i);
				released = released.handle((done, failure) -> failure)
					.thenCompose((failure) -> handle.releaseAsync().handle((done, next) -> {
						Throwable first = (failure != null) ? failure : next;
						if (first != null) {
							throw StoreCalls.asUnchecked(first);
						}
						return null;
					}));
			}
			return released;
		}

		@Override
		public void close() {
			if (!this.closed.compareAndSet(false, true)) {
				return;
			}
			RuntimeException first = null;
			for (int i = this.handles.size() - 1; i >= 0; i--) {
				try {
					this.handles.get(i).close();
				}
				catch (RuntimeException ex) {
					first = (first != null) ? first : ex;
				}
			}
			if (first != null) {
				throw first;
			}
		}

		@Override
		public String toString() {
			return "LockHandle[keys=" + this.key + ", held=" + isHeld() + "]";
		}

	}

}
