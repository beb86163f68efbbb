package io.github.distributelock.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import io.github.distributelock.redis.RedisLockBackend;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One JVM of the many-waiters rows, as the starter's {@code RedisManyAsyncWaitersTests}
 * does it: while one holder keeps a Redis key, 10 and then 10,000 callers start waiting
 * for it without blocking, through {@code DistributeLock.tryAcquireAsync} and through
 * {@code ReactiveDistributeLock.withLockMono}; the live threads and the heap are read
 * once all of them wait, then the holder lets go and each waiter holds the key once,
 * alone. Started by {@link WaitersHarness}, once per round.
 * <p>
 * Arguments: the round, the result file.
 */
public final class WaitersWorker {

	/** Far longer than a round: every waiter is served before its wait ends. */
	private static final Duration WAIT = Duration.ofSeconds(120);

	static final List<Integer> COUNTS = List.of(10, 10_000);

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

	private final DefaultDistributeLock lock;

	private final ReactiveDistributeLock reactive;

	private WaitersWorker(DefaultDistributeLock lock) {
		this.lock = lock;
		this.reactive = new DefaultReactiveDistributeLock(() -> lock);
	}

	public static void main(String[] args) throws Exception {
		int round = Integer.parseInt(args[0]);
		Path result = Path.of(args[1]);
		LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(Endpoints.fromSystemProperties());
		RedisLockBackend backend = new RedisLockBackend(factory);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		try {
			WaitersWorker worker = new WaitersWorker(lock);
			String key = "waiters." + round + "." + System.nanoTime();
			// The client's connections, the subscriber, the engine's scheduler and
			// Reactor's schedulers start here, and the code paths compile.
			for (int i = 0; i < 3; i++) {
				worker.serve(key, 1000, round, "async");
				worker.serve(key, 1000, round, "reactive");
			}
			List<WaitersRound> rounds = new ArrayList<>();
			for (String api : List.of("async", "reactive")) {
				for (int waiters : COUNTS) {
					rounds.add(worker.serve(key, waiters, round, api));
				}
			}
			JsonMapper.builder().build().writeValue(result.toFile(), rounds);
		}
		finally {
			lock.close();
			backend.close();
			factory.destroy();
		}
		System.exit(0);
	}

	private WaitersRound serve(String key, int waiters, int round, String api) throws Exception {
		LockHandle holder = this.lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		long heapBefore = heapAfterGc();
		int threadsBefore = this.threads.getThreadCount();
		this.threads.resetPeakThreadCount();
		AtomicInteger holding = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		Function<LockHandle, Void> work = (handle) -> {
			if (holding.incrementAndGet() != 1) {
				overlaps.incrementAndGet();
			}
			holding.decrementAndGet();
			return null;
		};
		LockRequest request = LockRequest.of(key).withWaitTime(WAIT);
		List<CompletableFuture<?>> served = new ArrayList<>(waiters);
		for (int i = 0; i < waiters; i++) {
			if (api.equals("async")) {
				served.add(this.lock.tryAcquireAsync(request).thenCompose((handle) -> {
					LockHandle held = handle.orElseThrow(() -> new IllegalStateException("A waiter was not served"));
					work.apply(held);
					return held.releaseAsync();
				}));
			}
			else {
				served.add(
						this.reactive
							.withLockMono(request, (held) -> Mono.fromRunnable(() -> work.apply(held)).thenReturn(key),
									() -> new IllegalStateException("A waiter was not served"))
							.toFuture());
			}
		}
		long heapWhileWaiting = heapAfterGc();
		int threadsWhileWaiting = this.threads.getThreadCount();
		long early = served.stream().filter(CompletableFuture::isDone).count();
		long start = System.nanoTime();
		holder.close();
		CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		return new WaitersRound(round, api, waiters, threadsBefore, threadsWhileWaiting,
				this.threads.getPeakThreadCount(), heapBefore, heapWhileWaiting, millis, early, overlaps.get(), "", "");
	}

	private long heapAfterGc() {
		// Twice: the first collection may leave objects with finalizers or weak
		// references for the second.
		System.gc();
		System.gc();
		return this.memory.getHeapMemoryUsage().getUsed();
	}

}
