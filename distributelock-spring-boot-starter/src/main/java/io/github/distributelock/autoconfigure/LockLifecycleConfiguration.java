package io.github.distributelock.autoconfigure;

import io.github.distributelock.core.DefaultDistributeLock;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Shuts the lock service down while the context closes, at the right moment: after the
 * application's own lifecycles have stopped (the web server's graceful shutdown, task
 * executors, message listeners), which may still need locks, and before the store's
 * clients stop, which the release of the held locks needs (Spring Data Redis's connection
 * factory stops in phase 0, long before beans are destroyed).
 *
 */
@Configuration(proxyBeanMethods = false)
class LockLifecycleConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static DistributeLockLifecycle distributeLockLifecycle(ObjectProvider<DefaultDistributeLock> locks) {
		return new DistributeLockLifecycle(locks);
	}

	/**
	 * Closes every {@link DefaultDistributeLock} when its lifecycle phase stops during a
	 * context close; a plain {@code stop()} of the context leaves it running.
	 */
	static class DistributeLockLifecycle
			implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

		/**
		 * Above the phase of the store clients (0), below every application lifecycle.
		 */
		static final int PHASE = 1024;

		/** Why the lock service shuts down, as the exceptions of its acquisitions say. */
		static final String CONTEXT_CLOSING = "the application context is closing";

		private final ObjectProvider<DefaultDistributeLock> locks;

		private volatile boolean running;

		private volatile boolean closing;

		private @Nullable ApplicationContext context;

		DistributeLockLifecycle(ObjectProvider<DefaultDistributeLock> locks) {
			this.locks = locks;
		}

		@Override
		public void onApplicationEvent(ContextClosedEvent event) {
			// Published before the lifecycles stop; a child context's closing reaches
			// this listener too, and must not shut this context's lock service at its
			// next stop().
			if (event.getApplicationContext() == this.context) {
				this.closing = true;
			}
		}

		@Override
		public void setApplicationContext(ApplicationContext context) {
			this.context = context;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			if (this.closing) {
				this.locks.orderedStream().forEach((lock) -> lock.close(CONTEXT_CLOSING));
			}
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return PHASE;
		}

	}

}
