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
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code CuratorFramework} that was never started (an application bean without
 * {@code initMethod = "start"}) is named as such: a lock call on it waited out its whole
 * wait time and then reported the key busy or a bare timeout.
 */
class ZooKeeperUnstartedClientTests {

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	/** Far short of the wait time of the calls below. */
	private static final long BOUND_SECONDS = 10;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aLockCallOnAClientNeverStartedFailsAtOnceSayingToStartIt() throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		this.closeables.add(client::close);
		ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client, ZooKeeperLockBackend.DEFAULT_ROOT);
		this.closeables.add(backend::close);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		this.closeables.add(lock::close);
		FutureTask<Optional<LockHandle>> call = new FutureTask<>(
				() -> lock.tryAcquire("on-a-client-never-started", Duration.ofSeconds(60), null));
		new Thread(call, "lock-on-a-client-never-started").start();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withMessageContaining("never started")
			.withMessageContaining("never started; call start() on it");
		assertThat(zooKeeper.store().checkExists().forPath("/locks/on-a-client-never-started")).isNull();
	}

}
