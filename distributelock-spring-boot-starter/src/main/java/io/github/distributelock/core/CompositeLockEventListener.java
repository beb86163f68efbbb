package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;

/**
 * Tells several listeners, in order.
 */
final class CompositeLockEventListener implements LockEventListener {

	private final List<LockEventListener> listeners;

	CompositeLockEventListener(List<LockEventListener> listeners) {
		this.listeners = listeners;
	}

	@Override
	public LockTracker acquiring(String key, String name, String backend) {
		LockTracker[] trackers = new LockTracker[this.listeners.size()];
		for (int i = 0; i < trackers.length; i++) {
			trackers[i] = this.listeners.get(i).acquiring(key, name, backend);
		}
		return new CompositeTracker(trackers);
	}

	@Override
	public void acquired(String key, Duration waited) {
		this.listeners.forEach((listener) -> listener.acquired(key, waited));
	}

	@Override
	public void notAcquired(String key, Duration waited) {
		this.listeners.forEach((listener) -> listener.notAcquired(key, waited));
	}

	@Override
	public void released(String key, Duration held) {
		this.listeners.forEach((listener) -> listener.released(key, held));
	}

	@Override
	public void renewed(String key) {
		this.listeners.forEach((listener) -> listener.renewed(key));
	}

	@Override
	public void lost(String key) {
		this.listeners.forEach((listener) -> listener.lost(key));
	}

	private record CompositeTracker(LockTracker[] trackers) implements LockTracker {

		@Override
		public void acquired(long fencingToken) {
			for (LockTracker tracker : this.trackers) {
				tracker.acquired(fencingToken);
			}
		}

		@Override
		public void notAcquired() {
			for (LockTracker tracker : this.trackers) {
				tracker.notAcquired();
			}
		}

		@Override
		public void failed(Throwable failure) {
			for (LockTracker tracker : this.trackers) {
				tracker.failed(failure);
			}
		}

		@Override
		public void renewed() {
			for (LockTracker tracker : this.trackers) {
				tracker.renewed();
			}
		}

		@Override
		public void renewalFailed(Throwable failure) {
			for (LockTracker tracker : this.trackers) {
				tracker.renewalFailed(failure);
			}
		}

		@Override
		public void releaseFailed(Throwable failure) {
			for (LockTracker tracker : this.trackers) {
				tracker.releaseFailed(failure);
			}
		}

		@Override
		public void lost(String reason) {
			for (LockTracker tracker : this.trackers) {
				tracker.lost(reason);
			}
		}

		@Override
		public void released() {
			for (LockTracker tracker : this.trackers) {
				tracker.released();
			}
		}

	}

}
