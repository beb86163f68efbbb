package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Nested;
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

	/**
	 * A task waits in a field of its own and spills into a queue only when another comes
	 * meanwhile: several threads handing in tasks at once must still have each run once,
	 * and those of one thread in the order it handed them in.
	 */
	@Test
	void tasksOfOneThreadRunOnceEachInTheOrderItHandedThemIn() throws Exception {
		int producers = 3;
		int tasksEach = 2_000;
		ExecutorService threads = Executors.newFixedThreadPool(producers);
		try {
			for (int round = 0; round < 20; round++) {
				CallerRuns callerRuns = new CallerRuns(Runnable::run);
				// Read and written by the tasks, which all run on this thread.
				int[] next = new int[producers];
				List<String> outOfOrder = new ArrayList<>();
				AtomicInteger ran = new AtomicInteger();
				CompletableFuture<Void> allRan = new CompletableFuture<>();
				for (int p = 0; p < producers; p++) {
					int producer = p;
					threads.execute(() -> {
						for (int i = 0; i < tasksEach; i++) {
							int task = i;
							callerRuns.execute(() -> {
								if (next[producer] != task) {
									outOfOrder.add("producer " + producer + ": task " + task + " after "
											+ (next[producer] - 1));
								}
								next[producer] = task + 1;
								if (ran.incrementAndGet() == producers * tasksEach) {
									allRan.complete(null);
								}
							});
						}
					});
				}
				callerRuns.await(allRan.orTimeout(30, TimeUnit.SECONDS), () -> {
				});
				assertThat(outOfOrder).isEmpty();
				assertThat(next).containsOnly(tasksEach);
				assertThat(ran).hasValue(producers * tasksEach);
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	/**
	 * A caller interrupted while tasks are handed in: each task runs once, on the caller
	 * or, once it stopped waiting, on the fallback executor.
	 */
	@Test
	void everyTaskRunsOnceWhenTheCallerStopsWaitingAsTasksAreHandedIn() throws Exception {
		int producers = 2;
		int tasksEach = 2_000;
		ExecutorService threads = Executors.newFixedThreadPool(producers);
		try {
			for (int round = 0; round < 20; round++) {
				CallerRuns callerRuns = new CallerRuns(Runnable::run);
				AtomicIntegerArray runs = new AtomicIntegerArray(producers * tasksEach);
				Thread caller = Thread.currentThread();
				List<CompletableFuture<Void>> handedIn = new ArrayList<>();
				for (int p = 0; p < producers; p++) {
					int producer = p;
					handedIn.add(CompletableFuture.runAsync(() -> {
						for (int i = 0; i < tasksEach; i++) {
							int task = producer * tasksEach + i;
							callerRuns.execute(() -> runs.incrementAndGet(task));
							if (producer == 0 && i == tasksEach / 2) {
								caller.interrupt();
							}
						}
					}, threads));
				}
				assertThatExceptionOfType(InterruptedException.class).isThrownBy(
						() -> callerRuns.await(new CompletableFuture<>().orTimeout(30, TimeUnit.SECONDS), () -> {
						}));
				CompletableFuture.allOf(handedIn.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
				for (int task = 0; task < runs.length(); task++) {
					assertThat(runs.get(task)).as("runs of task %d", task).isEqualTo(1);
				}
			}
		}
		finally {
			threads.shutdownNow();
		}
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
