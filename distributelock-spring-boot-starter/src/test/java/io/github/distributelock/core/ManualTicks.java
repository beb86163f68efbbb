package io.github.distributelock.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scheduler whose periodic task (the watchdog's tick) runs when the test says, not a
 * third of a long lease later.
 */
final class ManualTicks extends ScheduledThreadPoolExecutor {

	private volatile @Nullable Runnable periodic;

	ManualTicks() {
		super(1);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		this.periodic = command;
		return super.scheduleWithFixedDelay(command, 1, 1, TimeUnit.DAYS);
	}

	void tick() {
		Runnable periodic = this.periodic;
		assertThat(periodic).as("the watchdog's tick, scheduled").isNotNull();
		periodic.run();
	}

}
