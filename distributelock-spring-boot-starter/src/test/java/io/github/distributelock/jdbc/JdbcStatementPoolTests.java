package io.github.distributelock.jdbc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The order in which the statement pool runs what is queued: renewals and releases
 * ("ahead") before attempts and polls ("ordinary"), but never so many in a row that an
 * ordinary statement waits for as long as ahead ones keep coming. One thread, held by a
 * first task while the others are queued, so that the order is the pool's choice alone.
 */
class JdbcStatementPoolTests {

	/** Far more ahead statements than the bound lets run in a row. */
	private static final int STREAM = 10_000;

	private final JdbcStatementPool pool = new JdbcStatementPool(1);

	private final CountDownLatch blockerStarted = new CountDownLatch(1);

	private final CountDownLatch releaseBlocker = new CountDownLatch(1);

	@AfterEach
	void shutdown() {
		this.releaseBlocker.countDown();
		this.pool.shutdown();
	}

	@Test
	void aheadStatementsRunBeforeOrdinaryOnesQueuedEarlier() throws InterruptedException {
		holdTheThread();
		List<String> order = new CopyOnWriteArrayList<>();
		CountDownLatch done = new CountDownLatch(6);
		for (String name : List.of("poll 1", "poll 2", "poll 3")) {
			this.pool.ordinary().execute(record(order, name, done));
		}
		for (String name : List.of("renewal 1", "renewal 2", "renewal 3")) {
			this.pool.ahead().execute(record(order, name, done));
		}
		this.releaseBlocker.countDown();
		assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(order).containsExactly("renewal 1", "renewal 2", "renewal 3", "poll 1", "poll 2", "poll 3");
	}

	@Test
	void ordinaryStatementsRunWhileAheadOnesKeepComing() throws InterruptedException {
		holdTheThread();
		int ordinaryTasks = 3;
		CountDownLatch ordinaryRan = new CountDownLatch(ordinaryTasks);
		CountDownLatch streamEnded = new CountDownLatch(1);
		AtomicInteger aheadRun = new AtomicInteger();
		List<String> order = new CopyOnWriteArrayList<>();
		for (int i = 1; i <= ordinaryTasks; i++) {
			String name = "poll " + i;
			this.pool.ordinary().execute(() -> {
				order.add(name + " after " + aheadRun.get());
				ordinaryRan.countDown();
			});
		}
		// Each renewal queues the next, so one is always waiting while the polls wait,
		// until every poll ran or the stream, long as it is, ends.
		this.pool.ahead().execute(new Runnable() {

			@Override
			public void run() {
				if (aheadRun.incrementAndGet() < STREAM && ordinaryRan.getCount() > 0) {
					JdbcStatementPoolTests.this.pool.ahead().execute(this);
				}
				else {
					streamEnded.countDown();
				}
			}

		});
		this.releaseBlocker.countDown();
		assertThat(streamEnded.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(ordinaryRan.await(10, TimeUnit.SECONDS)).isTrue();
		int bound = JdbcStatementPool.MOST_AHEAD_IN_A_ROW;
		assertThat(order).containsExactly("poll 1 after " + bound, "poll 2 after " + 2 * bound,
				"poll 3 after " + 3 * bound);
	}

	@Test
	void shutdownRunsWhatIsQueuedAndRefusesNewStatements() throws InterruptedException {
		holdTheThread();
		CountDownLatch queuedRan = new CountDownLatch(2);
		this.pool.ordinary().execute(queuedRan::countDown);
		this.pool.ahead().execute(queuedRan::countDown);
		this.pool.shutdown();
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> this.pool.ahead().execute(() -> {
		})).withMessage("The JDBC lock backend is closed");
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> this.pool.ordinary().execute(() -> {
			}));
		this.releaseBlocker.countDown();
		assertThat(queuedRan.await(10, TimeUnit.SECONDS)).isTrue();
	}

	private void holdTheThread() throws InterruptedException {
		this.pool.ordinary().execute(() -> {
			this.blockerStarted.countDown();
			try {
				this.releaseBlocker.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(this.blockerStarted.await(10, TimeUnit.SECONDS)).isTrue();
	}

	private static Runnable record(List<String> order, String name, CountDownLatch done) {
		return () -> {
			order.add(name);
			done.countDown();
		};
	}

}
