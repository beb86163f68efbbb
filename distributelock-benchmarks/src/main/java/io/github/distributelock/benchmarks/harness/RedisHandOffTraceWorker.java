package io.github.distributelock.benchmarks.harness;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import io.github.distributelock.LockHandle;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.RedisLockBackend;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One of the two JVMs of the Redis hand-off trace, each with our Redis lock. In every
 * cycle the holder takes the key, waits until the waiter waits for it in the store, notes
 * the time, releases it and notes when its release returned; the waiter, besides its
 * lock, listens on the key's release channel with a connection of its own, so each cycle
 * gives the timeline of one hand-off across JVMs: the release's round trip, the
 * {@code PUBLISH} reaching the waiter's JVM, the waiter's lock returning; and, for
 * comparison, the time one uncontended attempt takes in the waiter's JVM. Started by
 * {@link RedisHandOffTrace}.
 * <p>
 * Arguments: {@code holder} or {@code waiter}, board file, warm-up cycles, measured
 * cycles, result file (written by the waiter: one line per measured cycle, in nanoseconds
 * from the release call, then the uncontended attempt's own time).
 */
public final class RedisHandOffTraceWorker {

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** The channel our Redis lock publishes a release of the key on (default prefix). */
	private static final String KEY = "trace.handoff";

	private static final String CHANNEL = "lock:" + KEY + ":released";

	private RedisHandOffTraceWorker() {
	}

	public static void main(String[] args) throws Exception {
		boolean holder = args[0].equals("holder");
		HandOffBoard board = HandOffBoard.open(Path.of(args[1]));
		int warmup = Integer.parseInt(args[2]);
		int measured = Integer.parseInt(args[3]);
		Endpoints endpoints = Endpoints.fromSystemProperties();
		LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(endpoints);
		try (RedisLockBackend backend = new RedisLockBackend(factory);
				DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			if (holder) {
				hold(lock, board, warmup + measured);
			}
			else {
				trace(lock, endpoints, board, warmup, measured, Path.of(args[4]));
			}
		}
		finally {
			factory.destroy();
		}
		System.exit(0);
	}

	private static void hold(DefaultDistributeLock lock, HandOffBoard board, int cycles) throws Exception {
		SplittableRandom random = new SplittableRandom(42);
		for (long cycle = 1; cycle <= cycles; cycle++) {
			board.awaitDone(cycle - 1);
			LockHandle held = lock.tryAcquire(KEY, WAIT, null).orElseThrow();
			board.held(cycle);
			board.awaitWaiting(cycle);
			// Long enough for the waiter's failed attempt to come back and its wait to
			// begin, so that the release wakes a waiter that waits in the store.
			LockSupport.parkNanos(random.nextLong(2_000_000, 5_000_000));
			board.releasedAt(System.nanoTime());
			held.close();
			board.releaseReturnedAt(System.nanoTime());
		}
	}

	private static void trace(DefaultDistributeLock lock, Endpoints endpoints, HandOffBoard board, int warmup,
			int measured, Path result) throws Exception {
		ConcurrentLinkedQueue<Long> published = new ConcurrentLinkedQueue<>();
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", endpoints.redisPort()));
		try (StatefulRedisPubSubConnection<String, String> probe = client.connectPubSub();
				PrintWriter out = new PrintWriter(Files.newBufferedWriter(result))) {
			probe.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String channel, String message) {
					published.add(System.nanoTime());
				}
			});
			probe.sync().subscribe(CHANNEL);
			int timeouts = 0;
			for (long cycle = 1; cycle <= warmup + measured; cycle++) {
				board.awaitHeld(cycle);
				published.clear();
				board.waiting(cycle);
				Optional<LockHandle> handle = lock.tryAcquire(KEY, WAIT, null);
				long acquiredAt = System.nanoTime();
				if (handle.isEmpty()) {
					timeouts++;
					board.done(cycle);
					continue;
				}
				long releasedAt = board.releasedAt();
				long publishedAt = firstAfter(published, releasedAt);
				long releaseReturnedAt = board.releaseReturnedAt();
				handle.get().close();
				long attemptFrom = System.nanoTime();
				lock.tryAcquire(KEY + ".uncontended", Duration.ZERO, null).orElseThrow().close();
				long attempt = System.nanoTime() - attemptFrom;
				if (cycle > warmup) {
					out.println((releaseReturnedAt - releasedAt) + " " + (publishedAt - releasedAt) + " "
							+ (acquiredAt - releasedAt) + " " + attempt);
				}
				board.done(cycle);
			}
			out.println("timeouts " + timeouts);
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * When the probe heard the release: the first message after it, waited for up to a
	 * second, as the probe's connection may hear it after the lock's own did.
	 */
	private static long firstAfter(ConcurrentLinkedQueue<Long> published, long releasedAt) {
		long giveUp = System.nanoTime() + 1_000_000_000L;
		while (System.nanoTime() - giveUp < 0) {
			for (Long at : published) {
				if (at - releasedAt >= 0) {
					return at;
				}
			}
			Thread.onSpinWait();
		}
		throw new IllegalStateException("The probe did not hear the release within a second");
	}

}
