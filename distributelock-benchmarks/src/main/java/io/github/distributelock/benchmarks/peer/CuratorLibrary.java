package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.jspecify.annotations.Nullable;

/**
 * Curator's {@link InterProcessMutex}: a sequential ephemeral node under the lock's path,
 * waiting on a watch of the node before it.
 */
public final class CuratorLibrary implements LockLibrary {

	private final CuratorFramework client;

	public CuratorLibrary(Endpoints endpoints) throws InterruptedException {
		this.client = StoreClients.curator(endpoints);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws Exception {
		InterProcessMutex mutex = new InterProcessMutex(this.client, "/curator-locks/" + key);
		if (!mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return mutex::release;
	}

	@Override
	public void close() {
		this.client.close();
	}

}
