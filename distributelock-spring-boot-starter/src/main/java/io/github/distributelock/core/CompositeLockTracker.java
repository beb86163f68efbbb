package io.github.distributelock.core;

import java.util.List;

/**
 * Tells several trackers, in order.
 */
record CompositeLockTracker(List<LockTracker> trackers) implements LockTracker {

	@Override
	public void acquired(long fencingToken) {
		this.trackers.forEach((tracker) -> tracker.acquired(fencingToken));
	}

	@Override
	public void notAcquired() {
		this.trackers.forEach(LockTracker::notAcquired);
	}

	@Override
	public void skipped() {
		this.trackers.forEach(LockTracker::skipped);
	}

	@Override
	public void failed(Throwable failure) {
		this.trackers.forEach((tracker) -> tracker.failed(failure));
	}

	@Override
	public void renewed() {
		this.trackers.forEach(LockTracker::renewed);
	}

	@Override
	public void renewalFailed(Throwable failure) {
		this.trackers.forEach((tracker) -> tracker.renewalFailed(failure));
	}

	@Override
	public void releaseFailed(Throwable failure) {
		this.trackers.forEach((tracker) -> tracker.releaseFailed(failure));
	}

	@Override
	public void lost(String reason) {
		this.trackers.forEach((tracker) -> tracker.lost(reason));
	}

	@Override
	public void released() {
		this.trackers.forEach(LockTracker::released);
	}

}
