package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.Optional;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

/**
 * Our lock of one kind (fair, write, read, permits or two keys), taken through the
 * {@link DistributeLock} bean's {@code tryAcquire(LockRequest)} and released by closing
 * its {@link LockHandle}, as the exclusive "ours" adapter does.
 */
public final class OursKindLibrary implements LockLibrary {

	/** The permits of the permit kind, ours and the peers' alike. */
	public static final int PERMITS = 3;

	private final DistributeLock lock;

	private final Kind kind;

	private final AutoCloseable resources;

	public OursKindLibrary(DistributeLock lock, Kind kind, AutoCloseable resources) {
		this.lock = lock;
		this.kind = kind;
		this.resources = resources;
	}

	/**
	 * What ours runs with for a kind, for the page.
	 * @param store {@code redis} or {@code zookeeper}
	 * @param kind the kind
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(String store, Kind kind) {
		LibraryConfiguration exclusive = OursLibrary.configuration(store, false);
		return new LibraryConfiguration(exclusive.product(), exclusive.client(), exclusive.settings(),
				"`tryAcquire(" + kind.request + ".withWaitTime(wait))`; unlock `LockHandle.close()`");
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		Optional<LockHandle> handle = this.lock.tryAcquire(this.kind.of(key).withWaitTime(wait));
		return handle.<Release>map((held) -> held::close).orElse(null);
	}

	@Override
	public void close() throws Exception {
		if (this.lock instanceof AutoCloseable closeable) {
			closeable.close();
		}
		this.resources.close();
	}

	/** The kinds, each with the request it makes for a key. */
	public enum Kind {

		/** A fair exclusive lock. */
		FAIR("LockRequest.of(key).withFair(true)"),

		/** The write lock of a read/write pair. */
		WRITE("LockRequest.of(key).withMode(LockMode.WRITE)"),

		/** The read lock of a read/write pair. */
		READ("LockRequest.of(key).withMode(LockMode.READ)"),

		/** One of {@link #PERMITS} permits. */
		PERMITS("LockRequest.of(key).withPermits(" + OursKindLibrary.PERMITS + ")"),

		/** Two keys, all or nothing. */
		MULTI("LockRequest.all(LockRequest.of(key + \".a\"), LockRequest.of(key + \".b\"))");

		final String request;

		Kind(String request) {
			this.request = request;
		}

		LockRequest of(String key) {
			return switch (this) {
				case FAIR -> LockRequest.of(key).withFair(true);
				case WRITE -> LockRequest.of(key).withMode(LockMode.WRITE);
				case READ -> LockRequest.of(key).withMode(LockMode.READ);
				case PERMITS -> LockRequest.of(key).withPermits(OursKindLibrary.PERMITS);
				case MULTI -> LockRequest.all(LockRequest.of(key + ".a"), LockRequest.of(key + ".b"));
			};
		}

	}

}
