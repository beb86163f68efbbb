package io.github.distributelock.jdbc;

import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.core.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * The owners that the key's row of the lock table carries while readers, a writer or
 * permit holders hold it, and the families of lock they stand for. A marker starts with
 * U+0001, which no caller's owner may (the backend refuses such owners), so a marker can
 * never be renewed or released by a plain statement; a fair holder owns the row under its
 * own owner, as a plain holder does.
 */
final class JdbcKindMarkers {

	private static final char MARKER = '\u0001';

	/** The owner of the key's row while readers hold it. */
	static final String READERS = MARKER + "read";

	/** The owner of the key's row while a writer holds it. */
	static final String WRITER = MARKER + "write";

	private static final String PERMITS = MARKER + "permits:";

	private JdbcKindMarkers() {
	}

	/** Whether an owner is one of the markers, which no caller may present. */
	static boolean isReserved(String owner) {
		return !owner.isEmpty() && owner.charAt(0) == MARKER;
	}

	static void requireUnreserved(String owner) {
		if (isReserved(owner)) {
			throw new IllegalArgumentException("The owner '" + owner.replace("\u0001", "\\u0001")
					+ "' cannot be stored: owners starting with U+0001 are reserved for the markers of read/write and "
					+ "permit locks in the lock table; use another owner");
		}
	}

	/** The owner of the key's row while holders of N permits hold it: N is part of it. */
	static String permits(int permits) {
		return PERMITS + permits;
	}

	/** The marker of a shared or write lock. */
	static String of(LockKind kind) {
		return switch (kind.type()) {
			case READ -> READERS;
			case WRITE -> WRITER;
			case PERMITS -> permits(kind.permits());
			case EXCLUSIVE, FAIR -> throw new IllegalArgumentException("An exclusive lock has no marker");
		};
	}

	/**
	 * Whether a kind belongs to the family of the key's holder (exclusive, read/write, or
	 * permits with the same count), or the key is free.
	 */
	static boolean sameFamily(LockKind kind, @Nullable String holder) {
		return holder == null || heldAs(holder).equals(askedAs(kind));
	}

	/** The failure of an attempt on a key held as another family: waiting cannot help. */
	static LockKindConflictException conflict(String key, LockKind kind, String holder, String table) {
		return new LockKindConflictException(
				"Lock '" + key + "' is held as " + heldAs(holder) + " lock in the lock table " + table
						+ " and was asked for as " + kind.withArticle()
						+ " lock; a key is locked as one kind at a time. Use another key, or the same kind.",
				key, "jdbc");
	}

	private static String heldAs(String holder) {
		if (!isReserved(holder)) {
			return "an exclusive (plain or fair)";
		}
		if (holder.startsWith(PERMITS)) {
			return "a " + holder.substring(PERMITS.length()) + "-permit";
		}
		return "a read/write";
	}

	private static String askedAs(LockKind kind) {
		return switch (kind.type()) {
			case EXCLUSIVE, FAIR -> "an exclusive (plain or fair)";
			case READ, WRITE -> "a read/write";
			case PERMITS -> "a " + kind.permits() + "-permit";
		};
	}

}
