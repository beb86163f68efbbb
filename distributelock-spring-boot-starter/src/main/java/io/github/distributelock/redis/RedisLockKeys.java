package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.cluster.SlotHash;

/**
 * The names of what one lock uses in Redis: the lock key itself, its fencing counter, the
 * queue, the shared holders and their recent releases of the other kinds, and its release
 * channel. Every key shares the lock key's hash slot so one script can touch them all on
 * Redis Cluster.
 */
final class RedisLockKeys {

	private static final int SLOTS = SlotHash.SLOT_COUNT;

	/** For each slot, a short hash tag that maps to it; filled in when first needed. */
	private static final String[] tagsBySlot = new String[SLOTS];

	private final String prefix;

	RedisLockKeys(String prefix) {
		this.prefix = prefix;
	}

	String lockKey(String key) {
		return this.prefix + key;
	}

	String fenceKey(String lockKey) {
		return sideKey(lockKey, "fence");
	}

	/** The queue of fair and write waiters: a sorted set of owners by arrival. */
	String queueKey(String lockKey) {
		return sideKey(lockKey, "queue");
	}

	/** The leases of the queued waiters: a sorted set of owners by deadline. */
	String waitersKey(String lockKey) {
		return sideKey(lockKey, "waiters");
	}

	/** The readers or permit holders: a sorted set of owners by lease deadline. */
	String holdersKey(String lockKey) {
		return sideKey(lockKey, "holders");
	}

	/**
	 * The last releases of readers and permit holders: a list of their fencing tokens and
	 * owners, newest first.
	 */
	String releasesKey(String lockKey) {
		return sideKey(lockKey, "releases");
	}

	/**
	 * A key beside the lock key, in its hash slot: tagged with the whole lock key, or
	 * with the lock key's own tag when it has one.
	 */
	private String sideKey(String lockKey, String suffix) {
		if (hasHashTag(lockKey)) {
			return lockKey + ":" + suffix;
		}
		if (lockKey.indexOf('{') < 0 && lockKey.indexOf('}') < 0) {
			return "{" + lockKey + "}:" + suffix;
		}
		// Braces that do not form a hash tag: wrapping would hash the wrong part, so use
		// a tag known to map to the lock key's slot.
		return "{" + tagFor(slot(lockKey)) + "}:" + suffix + ":" + lockKey;
	}

	/**
	 * The hash slot of a key as Redis Cluster computes it, from the UTF-8 bytes the
	 * backend sends. Not {@link SlotHash#getSlot(String)}, which hashes the JVM's default
	 * charset: US-ASCII on Java 17 without a locale, where keys that differ only outside
	 * ASCII all read as {@code ?} and seem to share a slot they do not.
	 */
	static int slot(String key) {
		return SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8));
	}

	String releaseChannel(String lockKey) {
		return lockKey + ":released";
	}

	/** Whether Redis Cluster would hash only a part of this key (a non-empty {...}). */
	static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

	private static String tagFor(int slot) {
		String tag = tagsBySlot[slot];
		if (tag == null) {
			for (int candidate = 0;; candidate++) {
				String text = Integer.toString(candidate, 36);
				int candidateSlot = slot(text);
				if (tagsBySlot[candidateSlot] == null) {
					tagsBySlot[candidateSlot] = text;
				}
				if (candidateSlot == slot) {
					return tagsBySlot[slot];
				}
			}
		}
		return tag;
	}

}
