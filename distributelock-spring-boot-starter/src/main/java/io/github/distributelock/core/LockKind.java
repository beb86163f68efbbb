package io.github.distributelock.core;

import java.time.Duration;

import java.util.Locale;

import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;

/**
 * The kind of lock one claim asks the store for, which decides what the store's
 * primitives do with it.
 * <ul>
 * <li>{@link Type#EXCLUSIVE}: one holder, taken by whoever reaches the store first (the
 * wire format of the original starter).</li>
 * <li>{@link Type#FAIR}: one holder, and waiters served in arrival order: an attempt
 * queues the claim (with a lease of its own, refreshed by the next attempt) unless it
 * takes the lock, and {@link LockBackend#release} of a waiting claim leaves the
 * queue.</li>
 * <li>{@link Type#READ} / {@link Type#WRITE}: any number of readers, or one writer; a
 * waiting writer keeps later readers out (no writer starves).</li>
 * <li>{@link Type#PERMITS}: at most {@link #permits()} holders of the key at once.</li>
 * </ul>
 * Every kind excludes a plain exclusive holder of the key, including nodes of the
 * original starter, and a store that finds the key held as another kind fails the attempt
 * with {@link io.github.distributelock.LockKindConflictException}.
 *
 * @param type the type
 * @param permits how many holders the key allows, for {@link Type#PERMITS}; else 1
 * @since 1.0.0
 */
public record LockKind(Type type, int permits) {

	/**
	 * How long a claim queued in the store (fair, write) keeps its place there after its
	 * last attempt. The engine attempts again at least every 3 s while it waits, so only
	 * a waiter that stopped (it crashed, or lost the store for that long) loses its
	 * place; and it retries taking a claim out of the queue this long at least, as an
	 * entry left there would hold up every waiter behind it.
	 */
	public static final Duration WAITER_LEASE = Duration.ofSeconds(10);

	/** The default: a plain exclusive lock. */
	public static final LockKind EXCLUSIVE = new LockKind(Type.EXCLUSIVE, 1);

	/** A fair exclusive lock. */
	public static final LockKind FAIR = new LockKind(Type.FAIR, 1);

	/** The read lock of a read/write pair. */
	public static final LockKind READ = new LockKind(Type.READ, 1);

	/** The write lock of a read/write pair. */
	public static final LockKind WRITE = new LockKind(Type.WRITE, 1);

	/**
	 * One of {@code permits} permits.
	 * @param permits how many holders the key allows, at least 1
	 * @return the kind
	 */
	public static LockKind permits(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, was " + permits);
		}
		return new LockKind(Type.PERMITS, permits);
	}

	/**
	 * The kind a request asks for.
	 * @param request the request
	 * @return the kind
	 * @throws IllegalArgumentException if the request combines options that do not go
	 * together
	 */
	public static LockKind of(LockRequest request) {
		if (request.permits() > 0) {
			if (request.mode() != LockMode.EXCLUSIVE || request.fair()) {
				throw new IllegalArgumentException(
						"Lock '" + request.key() + "': permits cannot be combined with " + "mode " + request.mode()
								+ ((request.fair()) ? " or fair" : "") + "; a permit request is its own kind of lock");
			}
			return permits(request.permits());
		}
		if (request.mode() != LockMode.EXCLUSIVE) {
			if (request.fair()) {
				throw new IllegalArgumentException("Lock '" + request.key() + "': a " + request.mode()
						+ " lock cannot be fair; waiting writers already keep later readers out");
			}
			return (request.mode() == LockMode.READ) ? READ : WRITE;
		}
		return (request.fair()) ? FAIR : EXCLUSIVE;
	}

	/**
	 * Whether several holders may hold the key at once.
	 * @return whether the kind is shared
	 */
	public boolean shared() {
		return this.type == Type.READ || this.type == Type.PERMITS;
	}

	/**
	 * Whether a waiting claim has an entry in the store, which it must leave when it
	 * gives up, and refresh while it waits.
	 * @return whether waiters queue in the store
	 */
	public boolean queued() {
		return this.type != Type.EXCLUSIVE;
	}

	/**
	 * Whether the owner of a lock of this kind may re-enter it with a request of
	 * {@code asked}: an exclusive or fair holder for either, a writer for writing and for
	 * reading its own key, a reader for reading, a permit holder for its permit.
	 * @param asked the kind the owner asks for again
	 * @return whether the owner's hold admits it
	 */
	public boolean admitsReentryAs(LockKind asked) {
		return switch (this.type) {
			case EXCLUSIVE, FAIR -> asked.type == Type.EXCLUSIVE || asked.type == Type.FAIR;
			case WRITE -> asked.type == Type.WRITE || asked.type == Type.READ;
			case READ -> asked.type == Type.READ;
			case PERMITS -> asked.equals(this);
		};
	}

	/**
	 * Why the owner of a lock of this kind cannot re-enter it as {@code asked}.
	 * @param asked the kind asked for
	 * @param key the lock key
	 * @param backend the backend's name, or where the hold is known
	 * @param holder who holds it, as the message names it: {@code this thread}, or
	 * {@code this reactive pipeline}
	 * @return the conflict, with what to do instead
	 */
	public LockKindConflictException reentryConflict(LockKind asked, String key, String backend, String holder) {
		if (this.type == Type.READ && asked.type == Type.WRITE) {
			return new LockKindConflictException(
					"Lock '" + key + "' is held for reading by " + holder + ", which "
							+ "asked for the write lock: upgrading would deadlock (two readers upgrading wait for each "
							+ "other forever). Release the read lock first, or take the write lock from the start.",
					key, backend);
		}
		return new LockKindConflictException("Lock '" + key + "' is held by " + holder + " as " + withArticle()
				+ " lock, and was asked for as " + asked.withArticle() + " lock; a key is locked as one kind at a "
				+ "time. Use another key, or the same kind.", key, backend);
	}

	/**
	 * The kind as messages name it, with its article: {@code an exclusive},
	 * {@code a fair}, {@code a 2-permit}.
	 * @return the kind's name in a sentence
	 */
	public String withArticle() {
		return switch (this.type) {
			case EXCLUSIVE -> "an exclusive";
			case PERMITS -> "a " + this.permits + "-permit";
			default -> "a " + tag();
		};
	}

	/**
	 * The kind as a metric tag and in messages: {@code exclusive}, {@code fair},
	 * {@code read}, {@code write} or {@code permits}.
	 * @return the tag
	 */
	public String tag() {
		return this.type.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The type of a lock.
	 */
	public enum Type {

		/** One holder; no order among waiters. */
		EXCLUSIVE,

		/** One holder; waiters in arrival order. */
		FAIR,

		/** Shared with other readers. */
		READ,

		/** Exclusive of readers and other writers. */
		WRITE,

		/** One of a number of holders. */
		PERMITS

	}

}
