package io.github.distributelock.core;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waits end at their deadlines with one timer for the earliest: a deadline before every
 * pending one sets a timer of its own, one after them waits for theirs, and the deadlines
 * of waits that ended early are forgotten.
 */
class WaitDeadlinesTests {

	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

	private final WaitDeadlines deadlines = new WaitDeadlines(this.timer);

	@AfterEach
	void stopTimer() {
		this.timer.shutdownNow();
	}

	@Test
	void anEarlierDeadlineAddedAfterALaterOneEndsItsWaitAtItsTime() throws Exception {
		CompletableFuture<Void> late = new CompletableFuture<>();
		CompletableFuture<Void> early = new CompletableFuture<>();
		this.deadlines.expireAt(late, Deadline.after(Duration.ofSeconds(60)));
		long start = System.nanoTime();
		this.deadlines.expireAt(early, Deadline.after(Duration.ofMillis(200)));

		early.get(10, TimeUnit.SECONDS);

		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
		assertThat(late).isNotDone();
		// Forgotten once the timer thread completed it (assertForgottenOnceEnded).
		await().atMost(Duration.ofSeconds(5)).until(() -> this.deadlines.pendingDeadlines() == 1);
	}

	@Test
	void laterDeadlinesSetNoTimerOfTheirOwnAndEachEndsAtItsTime() throws Exception {
		List<CompletableFuture<Void>> waits = new ArrayList<>();
		long start = System.nanoTime();
		for (int i = 1; i <= 5; i++) {
			CompletableFuture<Void> wait = new CompletableFuture<>();
			this.deadlines.expireAt(wait, Deadline.after(Duration.ofMillis(100L * i)));
			waits.add(wait);
		}
		assertThat(this.timer.getQueue()).as("timers set").hasSize(1);

		for (int i = 1; i <= 5; i++) {
			waits.get(i - 1).get(10, TimeUnit.SECONDS);
			assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(100L * i).toNanos());
		}
		assertForgottenOnceEnded();
	}

	@Test
	void aWaitEndedEarlyIsForgottenAndTheTimerSetForItMovesToTheNextDeadline() throws Exception {
		CompletableFuture<Void> woken = new CompletableFuture<>();
		CompletableFuture<Void> next = new CompletableFuture<>();
		this.deadlines.expireAt(woken, Deadline.after(Duration.ofMillis(100)));
		this.deadlines.expireAt(next, Deadline.after(Duration.ofMillis(300)));

		woken.complete(null);

		assertThat(this.deadlines.pendingDeadlines()).isOne();
		next.get(10, TimeUnit.SECONDS);
		assertForgottenOnceEnded();
	}

	/**
	 * A wait's deadline is forgotten by an action of its future, which the timer thread
	 * runs just after it completed the future: a caller woken by the completion can look
	 * before that (seen in CI).
	 */
	private void assertForgottenOnceEnded() {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.deadlines.pendingDeadlines() == 0);
	}

	@Test
	void waitsEndedEarlyAreNotKeptUntilTheirDeadlines() {
		List<WeakReference<CompletableFuture<Void>>> ended = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			CompletableFuture<Void> wait = new CompletableFuture<>();
			this.deadlines.expireAt(wait, Deadline.after(Duration.ofMinutes(10)));
			wait.complete(null);
			ended.add(new WeakReference<>(wait));
		}

		assertThat(this.deadlines.pendingDeadlines()).isZero();
		assertThat(this.timer.getQueue()).as("timers set").hasSize(1);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			System.gc();
			return ended.stream().allMatch((wait) -> wait.get() == null);
		});
	}

	@Test
	void closingEndsPendingWaitsAndLaterOnesAtOnce() {
		CompletableFuture<Void> pending = new CompletableFuture<>();
		CompletableFuture<Void> behind = new CompletableFuture<>();
		this.deadlines.expireAt(pending, Deadline.after(Duration.ofSeconds(60)));
		this.deadlines.expireAt(behind, Deadline.after(Duration.ofSeconds(90)));
		this.timer.shutdownNow();

		this.deadlines.close();
		CompletableFuture<Void> later = new CompletableFuture<>();
		this.deadlines.expireAt(later, Deadline.after(Duration.ofSeconds(120)));

		assertThat(List.of(pending, behind, later)).allMatch(CompletableFuture::isDone);
		assertThat(this.deadlines.pendingDeadlines()).isZero();
	}

	@Test
	void aWaitWhoseTimerCannotBeSetAnyMoreEndsAtOnce() {
		this.timer.shutdownNow();
		CompletableFuture<Void> wait = new CompletableFuture<>();

		this.deadlines.expireAt(wait, Deadline.after(Duration.ofSeconds(60)));

		assertThat(wait).isCompleted();
	}

}
