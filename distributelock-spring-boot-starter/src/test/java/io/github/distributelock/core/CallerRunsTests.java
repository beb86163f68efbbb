package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Where {@link CallerRuns#continuation} runs a caller's continuations.
 */
class CallerRunsTests {

	@Test
	void continuationRunsOnTheThreadOfTheCallerThatWaits() throws Exception {
		CallerRuns callerRuns = new CallerRuns(Runnable::run);
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<Thread> ranOn = answer.thenApplyAsync((released) -> Thread.currentThread(),
				CallerRuns.continuation(callerRuns));
		CompletableFuture.runAsync(() -> answer.complete("released"));
		assertThat(callerRuns.await(ranOn)).isSameAs(Thread.currentThread());
	}

	@Test
	void continuationOfACallerThatStoppedWaitingRunsWhereItsStageCompletesOnceTheSchedulerRefuses() throws Exception {
		ExecutorService closedScheduler = Executors.newSingleThreadExecutor();
		closedScheduler.shutdown();
		CallerRuns callerRuns = new CallerRuns(closedScheduler);
		callerRuns.await(CompletableFuture.completedFuture(null));
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> callerRuns.execute(() -> {
		}));
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<Thread> ranOn = answer.thenApplyAsync((released) -> Thread.currentThread(),
				CallerRuns.continuation(callerRuns));
		answer.complete("released");
		assertThat(ranOn).isCompletedWithValue(Thread.currentThread());
	}

	@Test
	void continuationWithoutACallerRunsWhereItsStageCompletes() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<Thread> ranOn = answer.thenApplyAsync((released) -> Thread.currentThread(),
				CallerRuns.continuation(null));
		answer.complete("released");
		assertThat(ranOn).isCompletedWithValue(Thread.currentThread());
	}

}
