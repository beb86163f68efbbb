package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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
		assertThat(callerRuns.await(ranOn, () -> {
		})).isSameAs(Thread.currentThread());
	}

	@Test
	void continuationOfACallerThatStoppedWaitingRunsWhereItsStageCompletesOnceTheSchedulerRefuses() throws Exception {
		ExecutorService closedScheduler = Executors.newSingleThreadExecutor();
		closedScheduler.shutdown();
		CallerRuns callerRuns = new CallerRuns(closedScheduler);
		callerRuns.await(CompletableFuture.completedFuture(null), () -> {
		});
		CompletableFuture<Thread> taskRanOn = new CompletableFuture<>();
		callerRuns.execute(() -> taskRanOn.complete(Thread.currentThread()));
		assertThat(taskRanOn).as("a task refused by the scheduler").isCompletedWithValue(Thread.currentThread());
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<Thread> ranOn = answer.thenApplyAsync((released) -> Thread.currentThread(),
				CallerRuns.continuation(callerRuns));
		answer.complete("released");
		assertThat(ranOn).isCompletedWithValue(Thread.currentThread());
	}

	/**
	 * A blocking call that waits many times (at a contended gate, each wait with the
	 * call's deadline) keeps only the ends of the waits in progress, not one per wait it
	 * ever made, which it would walk at every wake-up.
	 */
	@Test
	void keepsTheEndsOfWaitsInProgressOnly() {
		CallerRuns callerRuns = new CallerRuns(Runnable::run);
		Deadline deadline = Deadline.after(Duration.ofMinutes(1));
		for (int i = 0; i < 100; i++) {
			CompletableFuture<Void> wait = new CompletableFuture<>();
			CallerRuns.alsoEndAt(callerRuns, deadline, wait, () -> wait.complete(null));
			wait.complete(null);
		}
		CompletableFuture<Void> inProgress = new CompletableFuture<>();
		CallerRuns.alsoEndAt(callerRuns, deadline, inProgress, () -> inProgress.complete(null));
		assertThat(callerRuns.waitsToEnd()).isEqualTo(1);
	}

	@Test
	void continuationWithoutACallerRunsWhereItsStageCompletes() {
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<Thread> ranOn = answer.thenApplyAsync((released) -> Thread.currentThread(),
				CallerRuns.continuation(null));
		answer.complete("released");
		assertThat(ranOn).isCompletedWithValue(Thread.currentThread());
	}

	@Test
	void releaseOnAPlatformThreadRunsItsStatementsOnIt() {
		CallerRuns callerRuns = new CallerRuns(Runnable::run);
		assertThat(CallerRuns.forStatements(callerRuns.forRelease())).isSameAs(callerRuns);
	}

	/**
	 * A release on a virtual thread, which an interrupt during a blocking socket call
	 * would fail.
	 */
	@Nested
	@VirtualThreadContract
	class OnVirtualThreads {

		@Test
		void releaseRunsNoStatementNorContinuationOnItsThreadButEndsItsWaitsThere() throws Exception {
			ExecutorService virtualThreads = VirtualThreads.newExecutor();
			try {
				VirtualThreads.assertCallersRunOnVirtualThreads(virtualThreads, true);
				CompletableFuture<Thread> continuedOn = new CompletableFuture<>();
				CompletableFuture<Thread> waitEndedOn = new CompletableFuture<>();
				CompletableFuture<Thread> caller = CompletableFuture.supplyAsync(() -> {
					// A scheduler that never runs what it is given: only the caller ends
					// the wait.
					CallerRuns callerRuns = new CallerRuns((task) -> {
					});
					Executor releasing = callerRuns.forRelease();
					assertThat(CallerRuns.forStatements(releasing)).isNull();
					CompletableFuture<String> answer = new CompletableFuture<>();
					answer.thenRunAsync(() -> continuedOn.complete(Thread.currentThread()),
							CallerRuns.continuation(releasing));
					CompletableFuture.runAsync(() -> answer.complete("released"));
					CompletableFuture<Boolean> wait = new CompletableFuture<>();
					CallerRuns.alsoEndAt(releasing, Deadline.after(Duration.ofMillis(1)), wait, () -> {
						waitEndedOn.complete(Thread.currentThread());
						wait.complete(true);
					});
					try {
						callerRuns.awaitUninterruptibly(wait);
						return Thread.currentThread();
					}
					catch (ExecutionException ex) {
						throw new IllegalStateException(ex);
					}
				}, virtualThreads);
				Thread virtualCaller = caller.get(10, TimeUnit.SECONDS);
				assertThat(waitEndedOn).isCompletedWithValue(virtualCaller);
				assertThat(continuedOn.get(10, TimeUnit.SECONDS)).isNotSameAs(virtualCaller);
			}
			finally {
				virtualThreads.shutdownNow();
			}
		}

	}

}
