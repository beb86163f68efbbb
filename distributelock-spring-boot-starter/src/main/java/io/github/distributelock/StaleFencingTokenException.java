package io.github.distributelock;

/**
 * Thrown by a {@link FencedResource} that refuses a write because a newer lock holder has
 * already written with a higher fencing token: the writer lost its lock (a pause past its
 * lease, a lost session) and must not go on as if it still held it.
 *
 * @since 1.0.0
 */
public class StaleFencingTokenException extends IllegalStateException {

	private final long fencingToken;

	private final long highestAccepted;

	/**
	 * Creates an exception for a refused write.
	 * @param fencingToken the writer's token
	 * @param highestAccepted the highest token the resource has accepted
	 */
	public StaleFencingTokenException(long fencingToken, long highestAccepted) {
		super("Fencing token " + fencingToken + " is stale: the resource has accepted token " + highestAccepted
				+ " from a newer lock holder, so this writer lost its lock; stop and let the work be redone "
				+ "under a fresh lock");
		this.fencingToken = fencingToken;
		this.highestAccepted = highestAccepted;
	}

	/**
	 * The writer's token.
	 * @return the refused token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * The highest token the resource had accepted.
	 * @return the newer holder's token
	 */
	public long getHighestAccepted() {
		return this.highestAccepted;
	}

}
