package io.github.distributelock.actuate;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of distributelock, their tags and events.
 * <p>
 * With Micrometer's default meter handler, {@link #LOCK_ACQUISITION} gives the timer
 * {@code distributelock.acquire} (and {@code distributelock.acquire.active}, the callers
 * waiting now), whose count with {@code result=skipped} is the number of skipped runs of
 * scheduled methods, and {@link #LOCK_HOLD} gives the timer {@code distributelock.hold},
 * the long-task timer {@code distributelock.hold.active} (the locks held now) and one
 * counter per {@link LockHoldEvent event}: {@code distributelock.hold.renewed},
 * {@code distributelock.hold.renewal.failed}, {@code distributelock.hold.lost} and
 * {@code distributelock.hold.release.failed}.
 *
 * @since 1.0.0
 */
public enum DistributeLockObservationDocumentation implements ObservationDocumentation {

	/**
	 * An attempt to take a lock, from the call to its result.
	 */
	LOCK_ACQUISITION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockAcquisitionObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeyNames.BACKEND, LowCardinalityKeyNames.LOCK_NAME,
					LowCardinalityKeyNames.LOCK_KIND, LowCardinalityKeyNames.SHARD, LowCardinalityKeyNames.RESULT };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeyNames.LOCK_KEY };
		}

	},

	/**
	 * A held lock, from its acquisition to its release, or to its loss if it is lost
	 * first: a lost lock no longer counts among the locks held now, though its handle is
	 * still to be closed.
	 */
	LOCK_HOLD {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockHoldObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeyNames.BACKEND, LowCardinalityKeyNames.LOCK_NAME,
					LowCardinalityKeyNames.LOCK_KIND, LowCardinalityKeyNames.SHARD, LowCardinalityKeyNames.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

		@Override
		public Observation.Event[] getEvents() {
			return LockHoldEvent.values();
		}

	};

	/**
	 * Tags of the metrics and traces.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The backend: {@code redis}, {@code zookeeper} or {@code jdbc}. */
		BACKEND {
			@Override
			public String asString() {
				return "backend";
			}
		},

		/**
		 * The lock name: the {@code @Lockable} key, or the name of a lock taken by hand,
		 * never the full key.
		 */
		LOCK_NAME {
			@Override
			public String asString() {
				return "lock.name";
			}
		},

		/**
		 * The kind of lock: {@code exclusive}, {@code fair}, {@code read}, {@code write}
		 * or {@code permits}.
		 */
		LOCK_KIND {
			@Override
			public String asString() {
				return "lock.kind";
			}
		},

		/**
		 * The shard that holds the lock, only when the backend spreads its keys over
		 * several stores (JDBC with {@code distributelock.jdbc.shards}): its name, such
		 * as the name of its {@code DataSource} bean.
		 */
		SHARD {
			@Override
			public String asString() {
				return "shard";
			}
		},

		/**
		 * How an attempt ended: {@code acquired}, {@code timeout}, {@code skipped} (not
		 * taken, and the caller skips its work, as a scheduled method does) or
		 * {@code error}.
		 */
		RESULT {
			@Override
			public String asString() {
				return "result";
			}
		},

		/**
		 * How a hold ended: {@code released}, or {@code lost} before the release (the
		 * hold then ends at the loss).
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		}

	}

	/**
	 * Attributes of the traces only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/** The full lock key, with the values in it. */
		LOCK_KEY {
			@Override
			public String asString() {
				return "lock.key";
			}
		},

		/** The fencing token of the acquisition. */
		FENCING_TOKEN {
			@Override
			public String asString() {
				return "fencing.token";
			}
		}

	}

	/**
	 * What happens to a held lock.
	 */
	public enum LockHoldEvent implements Observation.Event {

		/** The watchdog renewed the lease. */
		RENEWED("renewed"),

		/** The watchdog could not renew the lease and retries while it lasts. */
		RENEWAL_FAILED("renewal.failed"),

		/**
		 * The release failed for a store error and is retried in the background until the
		 * lease would have ended.
		 */
		RELEASE_FAILED("release.failed"),

		/** The lock was lost while held. */
		LOST("lost");

		private final String name;

		LockHoldEvent(String name) {
			this.name = name;
		}

		@Override
		public String getName() {
			return this.name;
		}

	}

}
