package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock root and its missing parents are created at the first lock; under a chroot of
 * the connect string that does not exist, nothing can be, and the lock call fails within
 * its wait time, saying why. Curator's creation of missing parents retried without end
 * there, and a call with a 2 s wait under the default root was still waiting 18 minutes
 * later.
 */
class ZooKeeperRootCreationTests {

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	/** Far past the wait time and the session's connection, far short of for ever. */
	private static final long BOUND_SECONDS = 20;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/**
	 * The root of one level is the case that waited for good; under a root of two, the
	 * call failed with a bare {@code NoNode for /locks}.
	 */
	@ParameterizedTest
	@ValueSource(strings = { ZooKeeperLockBackend.DEFAULT_ROOT, "/locks/app" })
	void lockUnderAChrootThatDoesNotExistFailsWithinItsWaitTimeNamingTheChroot(String root) throws Exception {
		String chroot = "/missing-chroot-" + System.nanoTime();
		DefaultDistributeLock lock = lockOn(client(zooKeeper.connectString() + chroot), root);
		FutureTask<Optional<LockHandle>> call = new FutureTask<>(
				() -> lock.tryAcquire("under-a-missing-chroot", Duration.ofSeconds(2), null));
		new Thread(call, "lock-under-a-missing-chroot").start();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withStackTraceContaining("the chroot of the connect string does not exist");
		assertThat(zooKeeper.store().checkExists().forPath(chroot)).isNull();
	}

	@Test
	void rootWithMissingParentsUnderAnExistingChrootIsCreatedAtTheFirstLock() throws Exception {
		String chroot = "/chroot-" + System.nanoTime();
		zooKeeper.store().create().forPath(chroot);
		DefaultDistributeLock lock = lockOn(client(zooKeeper.connectString() + chroot), "/a/b/locks");
		Optional<LockHandle> handle = lock.tryAcquire("under-nested-parents", Duration.ofSeconds(5), null);
		assertThat(handle).isPresent();
		assertThat(zooKeeper.store().checkExists().forPath(chroot + "/a/b/locks/under-nested-parents")).isNotNull();
		handle.get().close();
	}

	private CuratorFramework client(String connectString) throws Exception {
		CuratorFramework client = EmbeddedZooKeeper.newClient(connectString, Duration.ofSeconds(10));
		this.closeables.add(client::close);
		return client;
	}

	private DefaultDistributeLock lockOn(CuratorFramework client, String root) {
		ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client, root);
		this.closeables.add(backend::close);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		this.closeables.add(lock::close);
		return lock;
	}

}
