package io.github.distributelock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link Lockable @Lockable} method returning a type that Spring's
 * {@code ReactiveAdapterRegistry} adapts, here RxJava's, holds the lock from the
 * subscription to the end of the work, as a {@code Mono} or a {@code Flux} does: not
 * while the method builds its result, and not after the work.
 */
class LockableRxJavaTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.store);

	private final Jobs target = new Jobs();

	private final Jobs jobs = LockableProxies.proxy(this.target, this.lock);

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aSingleHoldsTheLockWhileItsWorkRunsAndReleasesWhenItEnds() throws Exception {
		CompletableFuture<String> work = new CompletableFuture<>();
		Single<String> single = this.jobs.single(work);
		assertThat(this.store.isLocked("rx.single")).as("locked before the subscription").isFalse();

		CompletableFuture<String> result = single.toCompletionStage().toCompletableFuture();

		await().atMost(Duration.ofSeconds(10)).until(() -> this.store.isLocked("rx.single"));
		assertThat(result).isNotDone();
		work.complete("done");
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.store.isLocked("rx.single"));
	}

	@Test
	void aFlowableHoldsTheLockAcrossAllItsElementsAndEachSubscriptionLocksOnItsOwn() throws Exception {
		AtomicInteger freeDuringElements = new AtomicInteger();
		Flowable<Integer> flowable = this.jobs.flowable()
			.doOnNext((element) -> freeDuringElements.addAndGet(this.store.isLocked("rx.flowable") ? 0 : 1));

		List<Integer> first = flowable.toList().blockingGet();
		List<Integer> second = flowable.toList().blockingGet();

		assertThat(first).containsExactly(1, 2, 3);
		assertThat(second).containsExactly(1, 2, 3);
		assertThat(freeDuringElements).as("elements seen with the key free").hasValue(0);
		assertThat(this.target.flowableRuns).as("work runs, one per subscription").hasValue(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.store.isLocked("rx.flowable"));
	}

	public static class Jobs {

		final AtomicInteger flowableRuns = new AtomicInteger();

		@Lockable(key = "rx.single")
		public Single<String> single(CompletableFuture<String> work) {
			return Single.fromCompletionStage(work);
		}

		@Lockable(key = "rx.flowable")
		public Flowable<Integer> flowable() {
			return Flowable.defer(() -> {
				this.flowableRuns.incrementAndGet();
				return Flowable.just(1, 2, 3);
			});
		}

	}

}
