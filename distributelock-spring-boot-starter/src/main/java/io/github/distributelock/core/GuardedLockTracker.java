package io.github.distributelock.core;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells an application's tracker, and logs what it throws instead of letting it through:
 * trackers must not throw, but one that does would otherwise stop the engine's own work
 * at that point, such as the watchdog, whose periodic task ends at the first exception
 * and with it the renewal of every lock, or the lost-lock listeners of the handle.
 */
record GuardedLockTracker(String key, String backend, LockTracker tracker) implements LockTracker {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	/**
	 * A listener whose trackers are guarded; {@link LockEventListener#NONE} as it is.
	 */
	static LockEventListener guard(LockEventListener events) {
		if (events == LockEventListener.NONE) {
			return events;
		}
		return (KindListener) (key, name, backend, kind) -> new GuardedLockTracker(key, backend,
				events.acquiring(key, name, backend, kind));
	}

	@Override
	public void detached() {
		try {
			this.tracker.detached();
		}
		catch (RuntimeException ex) {
			threw("detached", ex);
		}
	}

	@Override
	public void acquired(long fencingToken) {
		try {
			this.tracker.acquired(fencingToken);
		}
		catch (RuntimeException ex) {
			threw("acquired", ex);
		}
	}

	@Override
	public void notAcquired() {
		try {
			this.tracker.notAcquired();
		}
		catch (RuntimeException ex) {
			threw("notAcquired", ex);
		}
	}

	@Override
	public void skipped() {
		try {
			this.tracker.skipped();
		}
		catch (RuntimeException ex) {
			threw("skipped", ex);
		}
	}

	@Override
	public void failed(Throwable failure) {
		try {
			this.tracker.failed(failure);
		}
		catch (RuntimeException ex) {
			threw("failed", ex);
		}
	}

	@Override
	public void renewed() {
		try {
			this.tracker.renewed();
		}
		catch (RuntimeException ex) {
			threw("renewed", ex);
		}
	}

	@Override
	public void renewalFailed(Throwable failure) {
		try {
			this.tracker.renewalFailed(failure);
		}
		catch (RuntimeException ex) {
			threw("renewalFailed", ex);
		}
	}

	@Override
	public void releaseFailed(Throwable failure) {
		try {
			this.tracker.releaseFailed(failure);
		}
		catch (RuntimeException ex) {
			threw("releaseFailed", ex);
		}
	}

	@Override
	public void lost(String reason) {
		try {
			this.tracker.lost(reason);
		}
		catch (RuntimeException ex) {
			threw("lost", ex);
		}
	}

	@Override
	public void released() {
		try {
			this.tracker.released();
		}
		catch (RuntimeException ex) {
			threw("released", ex);
		}
	}

	private void threw(String event, RuntimeException ex) {
		logger.warn("A LockEventListener's tracker failed when told '" + event + "' of lock '" + this.key + "' in "
				+ this.backend + "; trackers must not throw", ex);
	}

}
