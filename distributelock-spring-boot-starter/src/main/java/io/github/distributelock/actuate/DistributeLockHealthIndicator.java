package io.github.distributelock.actuate;

import java.math.BigDecimal;
import java.math.RoundingMode;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Reports whether the lock store answers, with the backend's name and the time one round
 * trip took: up when the store answered, down with the failure when it did not.
 *
 * @since 1.0.0
 */
public class DistributeLockHealthIndicator extends AbstractHealthIndicator {

	private static final BigDecimal NANOS_PER_MILLI = BigDecimal.valueOf(1_000_000);

	private final LockBackend backend;

	/**
	 * Creates an indicator.
	 * @param backend the store to check
	 */
	public DistributeLockHealthIndicator(LockBackend backend) {
		super("Lock store health check failed");
		this.backend = backend;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("backend", this.backend.name());
		if (!(this.backend instanceof LockStoreProbe probe)) {
			builder.unknown().withDetail("reason", "the backend has no probe (LockStoreProbe)");
			return;
		}
		long start = System.nanoTime();
		probe.probe();
		long roundTrip = System.nanoTime() - start;
		builder.up()
			.withDetail("roundTripMs",
					BigDecimal.valueOf(roundTrip).divide(NANOS_PER_MILLI, 3, RoundingMode.HALF_UP).doubleValue());
	}

}
