package io.github.distributelock.redis;

import io.lettuce.core.cluster.SlotHash;

/**
 * The names of what one lock uses in Redis: the lock key itself, its fencing counter and
 * its release channel. The counter must share the lock key's hash slot so one script can
 * touch both on Redis Cluster.
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
		if (hasHashTag(lockKey)) {
			return lockKey + ":fence";
		}
		if (lockKey.indexOf('{') < 0 && lockKey.indexOf('}') < 0) {
			return "{" + lockKey + "}:fence";
		}
		// Braces that do not form a hash tag: wrapping would hash the wrong part, so use
		// a
		// tag known to map to the lock key's slot.
		return "{" + tagFor(SlotHash.getSlot(lockKey)) + "}:fence:" + lockKey;
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
				int candidateSlot = SlotHash.getSlot(text);
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
