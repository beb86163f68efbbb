package io.github.distributelock.actuate;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Reports whether the lock store answers, with the backend's name and the time one round
 * trip took: up when the store answered, down with the failure when it did not. A backend
 * with shards is up when every shard answered, and its details give each shard's status,
 * with its round trip or its error.
 * <p>
 * It logs changes, not probes: one WARN (without a stack trace) when the store stops
 * answering, one INFO when it answers again; the stack trace of each failed probe is
 * logged at DEBUG by {@link LockStoreMonitor}.
 *
 * @since 1.0.0
 */
public class DistributeLockHealthIndicator implements HealthIndicator {

	private static final Log logger = LogFactory.getLog(DistributeLockHealthIndicator.class);

	private static final BigDecimal NANOS_PER_MILLI = BigDecimal.valueOf(1_000_000);

	private final LockStoreMonitor probe;

	/**
	 * Creates an indicator.
	 * @param probe the probe of the store to check
	 */
	public DistributeLockHealthIndicator(LockStoreMonitor probe) {
		this.probe = probe;
	}

	@Override
	public Health health() {
		LockStoreMonitor.Result result = this.probe.check();
		Health.Builder builder = new Health.Builder().withDetail("backend", this.probe.backendName());
		if (!result.shards().isEmpty()) {
			builder.withDetail("shards", shards(result.shards()));
		}
		RuntimeException failure = result.failure();
		if (failure != null) {
			if (result.wentDown()) {
				logger.warn("Lock store " + this.probe.store() + " is unavailable: " + result.reason()
						+ ". Lock calls fail with DistributeLockException until it answers.");
			}
			return builder.down(failure).build();
		}
		if (result.cameBack()) {
			logger.info("Lock store " + this.probe.store() + " is available again.");
		}
		return builder.up().withDetail("roundTripMs", millis(result.roundTrip())).build();
	}

	private static Map<String, Object> shards(Map<String, LockStoreMonitor.ShardCheck> shards) {
		Map<String, Object> details = new LinkedHashMap<>();
		shards.forEach((name, check) -> {
			RuntimeException failure = check.failure();
			details.put(name,
					(failure != null)
							? Map.of("status", "DOWN", "error",
									failure.getClass().getName() + ": " + LockStoreMonitor.Result.message(failure))
							: Map.of("status", "UP", "roundTripMs", millis(check.roundTrip())));
		});
		return details;
	}

	private static double millis(Duration duration) {
		return BigDecimal.valueOf(duration.toNanos()).divide(NANOS_PER_MILLI, 3, RoundingMode.HALF_UP).doubleValue();
	}

}
