package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * The name of one node of a fair, read/write or permit lock, a child of the key's queue:
 * {@code <kind>-<owner id>-<session>-<sequence>}, such as
 * {@code fair-3f9a0c1b2d4e5f60718293a4-0000019c2b7e0005-0000000042}.
 * <ul>
 * <li>the kind is {@code fair}, {@code read}, {@code write} or {@code permits<N>};</li>
 * <li>the owner id is the first 96 bits of the SHA-256 of the owner token, so that an
 * attempt finds its own node again by listing the queue, whatever the token's
 * length;</li>
 * <li>the session is the hexadecimal id of the session that asked for the node, so that a
 * node created twice by a retried request can be told from a node of another instance
 * that uses the same owner token;</li>
 * <li>the sequence is the server's ten-digit counter of the queue, which orders the nodes
 * of every kind together in arrival order.</li>
 * </ul>
 *
 * @param name the node name
 * @param kind the kind, or {@code null} for a node this library did not name
 * @param prefix the name without its sequence, the same for every node one request
 * creates
 * @param sequence the sequence number, or {@link Long#MAX_VALUE} if the name has none
 */
record ZooKeeperKindNode(String name, @Nullable LockKind kind, String prefix, long sequence) {

	private static final int SEQUENCE_DIGITS = 10;

	private static final int OWNER_ID_BYTES = 12;

	/**
	 * The name of a node {@code owner} asks for with {@code kind}, without the sequence
	 * the server appends.
	 */
	static String prefix(LockKind kind, String owner, long sessionId) {
		return tag(kind) + "-" + ownerId(owner) + "-" + String.format("%016x", sessionId) + "-";
	}

	/** The part of a node name that stands for {@code owner}. */
	static String ownerId(String owner) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(owner.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, OWNER_ID_BYTES);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	/** The node named {@code name}; a name this library did not make has no kind. */
	static ZooKeeperKindNode parse(String name) {
		int last = name.lastIndexOf('-');
		String sequence = name.substring(last + 1);
		if (last < 0 || sequence.length() != SEQUENCE_DIGITS || !sequence.chars().allMatch(Character::isDigit)) {
			return new ZooKeeperKindNode(name, null, name, Long.MAX_VALUE);
		}
		int first = name.indexOf('-');
		return new ZooKeeperKindNode(name, kindOf(name.substring(0, first)), name.substring(0, last + 1),
				Long.parseLong(sequence));
	}

	/** Whether this node was asked for by {@code owner}. */
	boolean ownedBy(String ownerId) {
		int first = this.prefix.indexOf('-');
		return this.kind != null && this.prefix.startsWith(ownerId + "-", first + 1);
	}

	/**
	 * Whether this node was asked for on the session {@code sessionId}: it was then
	 * created on that session, or on a later one by a request sent again.
	 */
	boolean askedOn(long sessionId) {
		return this.kind != null && this.prefix.endsWith("-" + String.format("%016x", sessionId) + "-");
	}

	/**
	 * Whether a node of kind {@code held} and one of kind {@code asked} may share the
	 * key: exclusive and fair locks are one family, read and write locks another, and
	 * permits a third, whose holders must agree on their number.
	 */
	static boolean sameFamily(LockKind held, LockKind asked) {
		return family(held) == family(asked) && (held.type() != LockKind.Type.PERMITS || held.equals(asked));
	}

	/**
	 * The failure of a claim that found the key held as another kind.
	 * @param heldAs the kind found, or {@code null} for a node this library did not
	 * create
	 * @param node the node found
	 */
	static LockKindConflictException conflict(Claim claim, @Nullable LockKind heldAs, String node, String backend) {
		String held = (heldAs != null) ? "as " + heldAs.withArticle() + " lock"
				: "through the node '" + node + "', which distributelock did not create,";
		return new LockKindConflictException("Lock '" + claim.key() + "' is held in ZooKeeper " + held
				+ " and was asked for as " + claim.kind().withArticle()
				+ " lock; a key is locked as one kind at a time "
				+ "(exclusive or fair, read/write, or permits of one count). Use another key, or the same kind.",
				claim.key(), backend);
	}

	private static int family(LockKind kind) {
		return switch (kind.type()) {
			case EXCLUSIVE, FAIR -> 0;
			case READ, WRITE -> 1;
			case PERMITS -> 2;
		};
	}

	private static String tag(LockKind kind) {
		return switch (kind.type()) {
			case FAIR, READ, WRITE -> kind.tag();
			case PERMITS -> "permits" + kind.permits();
			case EXCLUSIVE -> throw new IllegalArgumentException("A plain exclusive lock has no queue node");
		};
	}

	private static @Nullable LockKind kindOf(String tag) {
		switch (tag) {
			case "fair":
				return LockKind.FAIR;
			case "read":
				return LockKind.READ;
			case "write":
				return LockKind.WRITE;
			default:
				if (tag.startsWith("permits") && tag.length() > 7 && tag.length() < 18
						&& tag.chars().skip(7).allMatch(Character::isDigit)) {
					long permits = Long.parseLong(tag.substring(7));
					return (permits >= 1 && permits <= Integer.MAX_VALUE) ? LockKind.permits((int) permits) : null;
				}
				return null;
		}
	}

}
