package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.HandOverLockBackend.HandOver;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import static io.github.distributelock.redis.RedisScripts.Script;

/**
 * Which script each {@link LockKind} runs, on which keys and with which arguments, and
 * what its replies mean.
 * <ul>
 * <li>exclusive: {@code acquire.lua}, {@code renew.lua}, {@code release.lua}, the wire
 * format of the original starter (the lock word holds the owner), and
 * {@code hand-over.lua}, which passes it from one owner to the next in one step;</li>
 * <li>fair and write: the lock word holds a marker and the owner; waiters queue beside
 * it, in arrival order, each with a lease of its own ({@code fair-acquire.lua},
 * {@code renew.lua}, {@code fair-release.lua}, and for the fair lock
 * {@code fair-hand-over.lua}, which passes it to the head of the queue in one step);</li>
 * <li>read and permits: the lock word holds a marker and the owner while one holder holds
 * the key alone, as cheap as a plain lock; from the second holder on it holds the marker
 * alone, and the holders are counted beside it, each with its own lease
 * ({@code shared-*.lua}).</li>
 * </ul>
 * The values of the lock word are described in {@code prelude.lua}, the helpers the
 * scripts of the new kinds share.
 */
final class RedisKindScripts {

	/** How long a queued waiter keeps its place after its last attempt. */
	static final Duration WAITER_LEASE = LockKind.WAITER_LEASE;

	/**
	 * What a release script answers, and a hand-over script first, when the holder did
	 * not hold the lock but the key is as the first run of the same call would have left
	 * it: no other acquisition since this hold's fencing token, or the hand-over's next
	 * owner holding it. Lettuce sends a call again when its connection dropped before the
	 * answer, and the copy, with the same arguments, cannot know it is one.
	 */
	static final long RESENT = 2;

	static final Script FAIR_ACQUIRE = Script.readWithPrelude("fair-acquire.lua", ScriptOutputType.MULTI);

	static final Script FAIR_RELEASE = Script.read("fair-release.lua", ScriptOutputType.INTEGER);

	static final Script SHARED_ACQUIRE = Script.readWithPrelude("shared-acquire.lua", ScriptOutputType.MULTI);

	static final Script SHARED_RENEW = Script.readWithPrelude("shared-renew.lua", ScriptOutputType.INTEGER);

	static final Script SHARED_RELEASE = Script.readWithPrelude("shared-release.lua", ScriptOutputType.INTEGER);

	static final Script HAND_OVER = Script.readWithPrelude("hand-over.lua", ScriptOutputType.MULTI);

	static final Script FAIR_HAND_OVER = Script.readWithPrelude("fair-hand-over.lua", ScriptOutputType.MULTI);

	private final RedisLockKeys keys;

	private final String fenceIdleMillis;

	private final String waiterLeaseMillis;

	RedisKindScripts(RedisLockKeys keys, Duration fenceIdleTimeout, Duration waiterLease) {
		this.keys = keys;
		this.fenceIdleMillis = Long.toString(Math.max(1, fenceIdleTimeout.toMillis()));
		this.waiterLeaseMillis = Long.toString(Math.max(1, waiterLease.toMillis()));
	}

	/**
	 * How long an idle fencing counter is kept, in milliseconds, as a script argument.
	 */
	String fenceIdleMillis() {
		return this.fenceIdleMillis;
	}

	Call acquire(Claim claim, Duration lease) {
		String lockKey = lockKey(claim);
		String fence = this.keys.fenceKey(lockKey);
		String millis = Long.toString(lease.toMillis());
		return switch (claim.kind().type()) {
			case EXCLUSIVE -> new Call(RedisScripts.ACQUIRE, List.of(lockKey, fence),
					List.of(claim.owner(), millis, this.fenceIdleMillis, unique(claim)));
			case FAIR,
					WRITE ->
				new Call(FAIR_ACQUIRE,
						List.of(lockKey, fence, this.keys.queueKey(lockKey), this.keys.waitersKey(lockKey)),
						List.of(word(claim), claim.owner(), millis, this.fenceIdleMillis, this.waiterLeaseMillis,
								unique(claim)));
			case READ,
					PERMITS ->
				new Call(SHARED_ACQUIRE,
						List.of(lockKey, fence, this.keys.holdersKey(lockKey), this.keys.queueKey(lockKey),
								this.keys.waitersKey(lockKey)),
						List.of(word(claim), claim.owner(), millis, this.fenceIdleMillis, mostHolders(claim.kind()),
								unique(claim)));
		};
	}

	/**
	 * The plain or fair lock of {@code holder} passed to {@code next}, in one script.
	 * @throws UnsupportedOperationException for another kind
	 */
	Call handOver(Claim holder, Claim next, Duration lease) {
		String lockKey = lockKey(holder);
		lockKey(next);
		String millis = Long.toString(lease.toMillis());
		String fence = this.keys.fenceKey(lockKey);
		return switch (holder.kind().type()) {
			case EXCLUSIVE -> new Call(HAND_OVER, List.of(lockKey, fence),
					List.of(holder.owner(), next.owner(), millis, this.fenceIdleMillis, unique(next)));
			case FAIR -> new Call(FAIR_HAND_OVER,
					List.of(lockKey, fence, this.keys.queueKey(lockKey), this.keys.waitersKey(lockKey)),
					List.of(word(holder), word(next), next.owner(), millis, this.fenceIdleMillis,
							this.keys.releaseChannel(lockKey), this.waiterLeaseMillis, unique(next),
							Long.toString(holder.fencingToken())));
			default -> throw new UnsupportedOperationException(
					"A " + holder.kind().tag() + " lock is not handed over; release it instead");
		};
	}

	/**
	 * What the hand-over script answered: whether the holder held the lock, then the
	 * reply of an acquire script for the next owner.
	 * @param resent whether the client may have sent the script again: a holder found
	 * gone as a first run of the script would have left it ({@link #RESENT}) counts as
	 * released then
	 */
	static HandOver handOverResult(Claim next, @Nullable List<Object> reply, @Nullable Object hint, String backend,
			boolean resent) {
		if (reply == null || reply.size() != 3 || !(reply.get(0) instanceof Number released)) {
			throw new IllegalStateException("Unexpected reply to the hand-over script: " + reply);
		}
		return new HandOver(released(released, resent), acquireResult(next, reply.subList(1, 3), hint, backend));
	}

	/**
	 * Whether a release (or the holder's part of a hand-over) answered that the holder
	 * held the lock: {@code 1}; or {@link #RESENT} while the client may have sent the
	 * script again, whose first run then released the lock.
	 * @param reply the script's answer
	 * @param resent whether the client dropped a connection while the script was on its
	 * way
	 */
	static boolean released(@Nullable Number reply, boolean resent) {
		return reply != null && (reply.longValue() == 1 || (resent && reply.longValue() == RESENT));
	}

	Call renew(Claim claim, Duration lease) {
		String lockKey = lockKey(claim);
		String millis = Long.toString(lease.toMillis());
		String channel = this.keys.releaseChannel(lockKey);
		return switch (claim.kind().type()) {
			case EXCLUSIVE, FAIR, WRITE ->
				new Call(RedisScripts.RENEW, List.of(lockKey), List.of(word(claim), millis, channel));
			case READ, PERMITS -> new Call(SHARED_RENEW, List.of(lockKey, this.keys.holdersKey(lockKey)),
					List.of(word(claim), claim.owner(), millis, channel));
		};
	}

	Call release(Claim claim) {
		String lockKey = lockKey(claim);
		String channel = this.keys.releaseChannel(lockKey);
		return switch (claim.kind().type()) {
			case EXCLUSIVE -> new Call(RedisScripts.RELEASE, List.of(lockKey, this.keys.fenceKey(lockKey)),
					List.of(claim.owner(), channel, Long.toString(claim.fencingToken())));
			case FAIR,
					WRITE ->
				new Call(FAIR_RELEASE,
						List.of(lockKey, this.keys.queueKey(lockKey), this.keys.waitersKey(lockKey),
								this.keys.fenceKey(lockKey)),
						List.of(word(claim), claim.owner(), channel, Long.toString(claim.fencingToken())));
			// Every permit given back lets one more in; readers only let a writer in
			// once the last has left. Other holders take tokens of the key too, so the
			// counter cannot tell a copy sent again from a loss: the script remembers
			// the key's last releases.
			case READ,
					PERMITS ->
				new Call(SHARED_RELEASE,
						List.of(lockKey, this.keys.holdersKey(lockKey), this.keys.releasesKey(lockKey)),
						List.of(word(claim), claim.owner(), channel,
								(claim.kind().type() == LockKind.Type.PERMITS) ? "1" : "0",
								Long.toString(claim.fencingToken()), this.fenceIdleMillis));
		};
	}

	/**
	 * Whether a waiter of this kind may attempt again once the lock word is gone. A
	 * reader or a permit waiter may also get in while the word stays, when a holder
	 * leaves.
	 */
	static boolean freedWithTheLockWord(LockKind kind) {
		return !kind.shared();
	}

	/**
	 * What an acquire script answered: {@code {1, token}}, {@code {0, ms}} (held; the ms
	 * until a holder's lease ends, if positive) or {@code {-1, kind held}}.
	 * @throws LockKindConflictException if the key is held as another kind
	 */
	static AcquireResult acquireResult(Claim claim, @Nullable List<Object> reply, @Nullable Object hint,
			String backend) {
		if (reply == null || reply.size() != 2 || !(reply.get(0) instanceof Number outcome)) {
			throw new IllegalStateException("Unexpected reply to the acquire script: " + reply);
		}
		if (outcome.longValue() == -1) {
			throw conflict(claim, text(reply.get(1)), backend);
		}
		long value = ((Number) reply.get(1)).longValue();
		if (outcome.longValue() == 1) {
			return AcquireResult.acquired(value);
		}
		AcquireResult held = AcquireResult.heldByAnother((value > 0) ? Duration.ofMillis(value) : null, hint);
		// Readers and permit callers never queue (shared-acquire.lua): nothing to leave.
		return claim.kind().shared() ? held.notQueued() : held;
	}

	private static LockKindConflictException conflict(Claim claim, String held, String backend) {
		return new LockKindConflictException("Lock '" + claim.key() + "' is held in " + backend + " as "
				+ describe(held) + " lock and was asked for as " + claim.kind().withArticle() + " lock; a key is "
				+ "locked as one kind at a time (exclusive or fair, read/write, or permits of one count). Use another "
				+ "key, or the same kind.", claim.key(), backend);
	}

	/**
	 * The kind a script named, with its article in the words of
	 * {@link LockKind#withArticle()}, so that a conflict reads the same on every store.
	 * @param held {@code exclusive}, {@code fair}, {@code read}, {@code write},
	 * {@code permits:<n>}, or what a lock word of an unknown kind carries
	 */
	private static String describe(String held) {
		LockKind kind = kindOf(held);
		if (kind != null) {
			return kind.withArticle();
		}
		return (!held.isEmpty() && "aeiou".indexOf(held.charAt(0)) >= 0) ? "an " + held : "a " + held;
	}

	private static @Nullable LockKind kindOf(String held) {
		return switch (held) {
			case "exclusive" -> LockKind.EXCLUSIVE;
			case "fair" -> LockKind.FAIR;
			case "read" -> LockKind.READ;
			case "write" -> LockKind.WRITE;
			default -> permitsOf(held);
		};
	}

	private static @Nullable LockKind permitsOf(String held) {
		String count = held.startsWith("permits:") ? held.substring("permits:".length()) : "";
		if (count.isEmpty() || count.length() > 10 || !count.chars().allMatch(Character::isDigit)) {
			return null;
		}
		long permits = Long.parseLong(count);
		return (permits >= 1 && permits <= Integer.MAX_VALUE) ? LockKind.permits((int) permits) : null;
	}

	/**
	 * What this claim writes into the lock word: its owner for the exclusive lock (the
	 * original starter's format), a marker that no owner can start with for the others.
	 */
	static String word(Claim claim) {
		return switch (claim.kind().type()) {
			case EXCLUSIVE -> claim.owner();
			case FAIR -> "\0dl:fair\0" + claim.owner();
			case WRITE -> "\0dl:write\0" + claim.owner();
			case READ -> "\0dl:read";
			case PERMITS -> "\0dl:permits:" + claim.kind().permits();
		};
	}

	/**
	 * The lock key of a claim whose owner can be stored.
	 * @throws IllegalArgumentException if the owner could pass for a kind's marker
	 */
	String lockKey(Claim claim) {
		if (claim.owner().startsWith("\0")) {
			throw new IllegalArgumentException("An owner of a Redis lock must not start with a zero character "
					+ "(U+0000), which marks the lock kinds in the lock key's value; use another owner value");
		}
		return this.keys.lockKey(claim.key());
	}

	/**
	 * Whether the claim's owner is unique to its acquisition, as a script argument: a
	 * script that finds the key held by such an owner counts the attempt as its own, as
	 * when Lettuce sent it again, once a dropped connection was back, after it had run.
	 */
	static String unique(Claim claim) {
		return claim.ownerUnique() ? "1" : "0";
	}

	private static String mostHolders(LockKind kind) {
		return (kind.type() == LockKind.Type.PERMITS) ? Integer.toString(kind.permits()) : "0";
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	/**
	 * One script call: the script, its keys (all in the lock key's hash slot) and its
	 * arguments.
	 */
	record Call(Script script, List<String> keys, List<String> args) {

		byte[][] keyBytes() {
			return bytes(this.keys);
		}

		byte[][] argBytes() {
			return bytes(this.args);
		}

		String[] argArray() {
			return this.args.toArray(String[]::new);
		}

		RedisScript<Object> redisScript() {
			return this.script.redisScript();
		}

		private static byte[][] bytes(List<String> texts) {
			byte[][] bytes = new byte[texts.size()][];
			for (int i = 0; i < bytes.length; i++) {
				bytes[i] = RedisScripts.bytes(texts.get(i));
			}
			return bytes;
		}

	}

}
