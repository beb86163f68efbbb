package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.jspecify.annotations.Nullable;

/**
 * Curator's {@link InterProcessMutex}: a sequential ephemeral node under the lock's path,
 * waiting on a watch of the node before it. Its threads share one client, as Curator's
 * documentation asks, or each thread has its own client, and so its own ZooKeeper
 * session, which hands off differently between the threads of one JVM.
 */
public final class CuratorLibrary implements LockLibrary {

	private static final String SETTINGS = "Curator's defaults: session timeout 60 s, connection timeout 15 s";

	private static final String CALLS = "`new InterProcessMutex(client, \"/curator-locks/\" + key)"
			+ ".acquire(wait, MILLISECONDS)`; unlock `release()`";

	/** What the shared-client adapter runs. */
	public static final LibraryConfiguration SHARED = new LibraryConfiguration("Curator",
			"`CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(100, 3))`, one client (one "
					+ "ZooKeeper session) shared by the JVM's threads, as Curator's documentation asks",
			SETTINGS, CALLS);

	/** What the client-per-thread adapter runs. */
	public static final LibraryConfiguration PER_THREAD = new LibraryConfiguration("Curator",
			"the same client, but one per thread (one ZooKeeper session per thread), created at the thread's first "
					+ "lock, in the warm-up",
			SETTINGS, CALLS);

	private final Endpoints endpoints;

	private final @Nullable CuratorFramework shared;

	private final Map<Thread, CuratorFramework> perThread = new ConcurrentHashMap<>();

	/**
	 * Connects.
	 * @param endpoints the servers
	 * @param sessionPerThread whether each thread gets its own client instead of sharing
	 * one
	 * @throws InterruptedException if interrupted while connecting
	 */
	public CuratorLibrary(Endpoints endpoints, boolean sessionPerThread) throws InterruptedException {
		this.endpoints = endpoints;
		this.shared = sessionPerThread ? null : StoreClients.curator(endpoints);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		InterProcessMutex mutex = new InterProcessMutex(client(), "/curator-locks/" + key);
		if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return mutex::release;
	}

	private CuratorFramework client() throws InterruptedException {
		if (this.shared != null) {
			return this.shared;
		}
		// Only the current thread puts its own entry: no race between threads.
		CuratorFramework client = this.perThread.get(Thread.currentThread());
		if (client == null) {
			client = StoreClients.curator(this.endpoints);
			this.perThread.put(Thread.currentThread(), client);
		}
		return client;
	}

	@Override
	public void close() {
		if (this.shared != null) {
			this.shared.close();
		}
		this.perThread.values().forEach(CuratorFramework::close);
	}

}
