package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.autoconfigure.DistributeLockProperties.StartupCheck;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Probes the lock store once when the application starts, as
 * {@code distributelock.startup-check} says: in the background with one warning if it
 * does not answer, before the application starts with a failed startup if it does not, or
 * not at all.
 */
class LockStoreStartupCheck implements SmartInitializingSingleton, ApplicationListener<ContextClosedEvent>,
		ApplicationContextAware, DisposableBean {

	private static final Log logger = LogFactory.getLog(LockStoreStartupCheck.class);

	private final LockStoreMonitor probe;

	private final StartupCheck mode;

	private final @Nullable String configuredBy;

	private volatile boolean closed;

	private volatile @Nullable Thread background;

	private @Nullable ApplicationContext context;

	LockStoreStartupCheck(LockStoreMonitor probe, StartupCheck mode, @Nullable String configuredBy) {
		this.probe = probe;
		this.mode = mode;
		this.configuredBy = configuredBy;
	}

	@Override
	public void afterSingletonsInstantiated() {
		switch (this.mode) {
			case FAIL -> failIfUnavailable();
			case WARN -> {
				// A store that does not answer at all can keep the probe for as long as
				// the client's timeouts and retries (a minute with ZooKeeper's defaults):
				// a warning is not worth holding up the startup for.
				Thread thread = new Thread(this::warnIfUnavailable, "distributelock-startup-check");
				thread.setDaemon(true);
				this.background = thread;
				thread.start();
			}
			case NONE -> {
			}
		}
	}

	void failIfUnavailable() {
		LockStoreMonitor.Result result = this.probe.check();
		if (!result.isUp()) {
			String where = (this.configuredBy != null) ? " (" + this.configuredBy + ")" : "";
			throw new DistributeLockConfigurationException(
					"Lock store " + this.probe.store() + " is unavailable at startup: " + result.reason() + ".",
					"Start the lock store or correct its address" + where + ", or set "
							+ "distributelock.startup-check=warn to start without it; lock calls then fail with "
							+ "DistributeLockException until it answers.");
		}
	}

	void warnIfUnavailable() {
		LockStoreMonitor.Result result = this.probe.check();
		if (this.closed) {
			return;
		}
		if (result.wentDown()) {
			logger.warn("Lock store " + this.probe.store() + " is unavailable at startup: " + result.reason()
					+ ". The application starts without it, and lock calls fail with DistributeLockException "
					+ "until it answers; set distributelock.startup-check=fail to stop the startup instead.");
		}
		else if (result.isUp() && logger.isDebugEnabled()) {
			logger.debug("Lock store " + this.probe.store() + " answered at startup in " + result.roundTrip().toMillis()
					+ " ms");
		}
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		// Published before the store's client stops, which would fail a probe under way.
		// A child context's closing reaches this listener too, and must not silence the
		// check of this context's store.
		if (event.getApplicationContext() == this.context) {
			this.closed = true;
		}
	}

	@Override
	public void destroy() {
		this.closed = true;
		Thread thread = this.background;
		if (thread != null) {
			thread.interrupt();
		}
	}

}
