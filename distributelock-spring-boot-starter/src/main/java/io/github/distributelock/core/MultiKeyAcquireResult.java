package io.github.distributelock.core;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one {@link MultiKeyLockBackend#tryAcquireAll attempt} to take several
 * keys at once: all of them, each with its fencing token, or none, with the claim whose
 * key was held.
 *
 * @param fencingTokens the fencing token of each claim, in the order of the claims, when
 * acquired; empty otherwise
 * @param heldIndex the position of the claim whose key was held, when not acquired; -1
 * otherwise
 * @param held what an attempt of that claim alone would have said (with the holder's
 * remaining lease and the backend's hint for {@link LockBackend#awaitRelease}), when not
 * acquired
 * @since 1.0.0
 */
public record MultiKeyAcquireResult(List<Long> fencingTokens, int heldIndex, @Nullable AcquireResult held) {

	/**
	 * Checks that the result is either acquired or names a held claim.
	 * @param fencingTokens the fencing tokens, when acquired
	 * @param heldIndex the position of the held claim, or -1
	 * @param held the result for the held claim, or {@code null}
	 */
	public MultiKeyAcquireResult {
		fencingTokens = List.copyOf(fencingTokens);
		if ((held == null) == (heldIndex >= 0) || (held != null && (held.acquired() || !fencingTokens.isEmpty()))) {
			throw new IllegalArgumentException("A multi-key result is either acquired with a token per claim, or names "
					+ "the position of a held claim with that claim's not-acquired result; was tokens=" + fencingTokens
					+ ", heldIndex=" + heldIndex + ", held=" + held);
		}
	}

	/**
	 * Every claim was taken.
	 * @param fencingTokens the fencing token of each claim, in the order of the claims
	 * @return the result
	 */
	public static MultiKeyAcquireResult acquired(List<Long> fencingTokens) {
		return new MultiKeyAcquireResult(fencingTokens, -1, null);
	}

	/**
	 * No claim was taken, because the key of one is held.
	 * @param heldIndex the position of that claim
	 * @param held what an attempt of that claim alone would have said
	 * @return the result
	 */
	public static MultiKeyAcquireResult heldByAnother(int heldIndex, AcquireResult held) {
		return new MultiKeyAcquireResult(List.of(), heldIndex, held);
	}

	/**
	 * Whether every claim was taken.
	 * @return whether the keys are held now
	 */
	public boolean acquired() {
		return this.held == null;
	}

}
