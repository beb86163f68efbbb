package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.benchmarks.ours.OursKindLibrary;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.jspecify.annotations.Nullable;

/**
 * Curator's equivalent of one of our lock kinds on one client shared by the JVM's
 * threads, built like {@link CuratorLibrary}'s: the write or read lock of an
 * {@code InterProcessReadWriteLock}, an {@code InterProcessSemaphoreV2}, or an
 * {@code InterProcessMultiLock} of two paths. Its fair lock is {@code InterProcessMutex},
 * which is fair: {@link CuratorLibrary}.
 */
public final class CuratorKindLibrary implements LockLibrary {

	private final CuratorFramework client;

	private final OursKindLibrary.Kind kind;

	public CuratorKindLibrary(Endpoints endpoints, OursKindLibrary.Kind kind) throws InterruptedException {
		if (kind == OursKindLibrary.Kind.FAIR) {
			throw new IllegalArgumentException("Curator's fair lock is InterProcessMutex: use CuratorLibrary");
		}
		this.client = StoreClients.curator(endpoints);
		this.kind = kind;
	}

	/**
	 * What Curator runs with for a kind, for the page.
	 * @param kind the kind
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(OursKindLibrary.Kind kind) {
		String calls = switch (kind) {
			case WRITE -> "`new InterProcessReadWriteLock(client, \"/curator-locks/\" + key).writeLock()"
					+ ".acquire(wait, MILLISECONDS)`; unlock `release()`";
			case READ -> "`new InterProcessReadWriteLock(client, \"/curator-locks/\" + key).readLock()"
					+ ".acquire(wait, MILLISECONDS)`; unlock `release()`";
			case PERMITS -> "`new InterProcessSemaphoreV2(client, \"/curator-locks/\" + key, " + OursKindLibrary.PERMITS
					+ ").acquire(wait, MILLISECONDS)`; unlock `returnLease(lease)`";
			case MULTI -> "`new InterProcessMultiLock(client, List.of(\"/curator-locks/\" + key + \".a\", "
					+ "\"/curator-locks/\" + key + \".b\")).acquire(wait, MILLISECONDS)`; unlock `release()`";
			case FAIR -> CuratorLibrary.SHARED.calls();
		};
		return new LibraryConfiguration("Curator", CuratorLibrary.SHARED.client(), CuratorLibrary.SHARED.settings(),
				calls);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		String path = "/curator-locks/" + key;
		if (this.kind == OursKindLibrary.Kind.PERMITS) {
			InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(this.client, path, OursKindLibrary.PERMITS);
			Lease lease = semaphore.acquire(wait.toMillis(), TimeUnit.MILLISECONDS);
			if (lease == null) {
				return null;
			}
			return () -> semaphore.returnLease(lease);
		}
		InterProcessLock lock = switch (this.kind) {
			case WRITE -> new InterProcessReadWriteLock(this.client, path).writeLock();
			case READ -> new InterProcessReadWriteLock(this.client, path).readLock();
			default -> new InterProcessMultiLock(this.client, List.of(path + ".a", path + ".b"));
		};
		if (!lock.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::release;
	}

	@Override
	public void close() {
		this.client.close();
	}

}
