package io.github.distributelock.core;

/**
 * The rule that gives a lock key taken by hand a bounded name for metrics, so that the
 * values in a key never become metric tags.
 * <p>
 * The name is the key's leading run of letters, at most {@value #MAX_LENGTH} characters:
 * {@code account:42} is named {@code account}, {@code order.addOder_42_abc} is named
 * {@code order}, {@code stock-7} is named {@code stock}; a key that does not start with a
 * letter is named {@value #UNNAMED}. A
 * {@link io.github.distributelock.Lockable @Lockable} lock is named by its {@code key},
 * and a lock taken by hand can be given its name explicitly with
 * {@link io.github.distributelock.DistributeLock#tryAcquire(String, String, java.time.Duration, java.time.Duration)}.
 *
 * @since 1.0.0
 */
public final class LockNames {

	/** The longest name derived from a key. */
	public static final int MAX_LENGTH = 64;

	/** The name of a key that does not start with a letter. */
	public static final String UNNAMED = "unnamed";

	private LockNames() {
	}

	/**
	 * The name of a lock key for metrics.
	 * @param key the lock key
	 * @return its leading letters, or {@value #UNNAMED}
	 */
	public static String fromKey(String key) {
		int end = 0;
		while (end < key.length() && end < MAX_LENGTH) {
			int codePoint = key.codePointAt(end);
			if (!Character.isLetter(codePoint)) {
				break;
			}
			end += Character.charCount(codePoint);
		}
		return (end > 0) ? key.substring(0, end) : UNNAMED;
	}

}
