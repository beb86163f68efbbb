package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The keys of one {@link BatchAcquisition}, in the keys' global order: for each, this
 * JVM's use of the key, what is asked for it, and the tracker that follows its
 * acquisition and, once taken, its hold.
 */
final class BatchMembers {

	private final List<Member> members;

	private final List<LockBackend.Claim> claims;

	private final List<LocalLocks.Slot> slots;

	/**
	 * @param members each key, in the keys' global order; not copied
	 */
	BatchMembers(List<Member> members) {
		this.members = members;
		List<LockBackend.Claim> claims = new ArrayList<>(members.size());
		List<LocalLocks.Slot> slots = new ArrayList<>(members.size());
		for (Member member : members) {
			claims.add(member.request().claim());
			slots.add(member.slot());
		}
		this.claims = claims;
		this.slots = slots;
	}

	int size() {
		return this.members.size();
	}

	/** Each key's claim, as the store is asked for it. */
	List<LockBackend.Claim> claims() {
		return this.claims;
	}

	List<LocalLocks.Slot> slots() {
		return this.slots;
	}

	/** How long after their answer the locks of all keys are gone from the store. */
	Duration longestExpiry(Watchdog watchdog) {
		Duration longest = Duration.ZERO;
		for (Member member : this.members) {
			Duration expiry = watchdog.expiresAfter(member.request().fixedLease());
			longest = (expiry.compareTo(longest) > 0) ? expiry : longest;
		}
		return longest;
	}

	/** The lease the store is asked for, for each key. */
	List<Duration> storeLeases(Watchdog watchdog) {
		List<Duration> leases = new ArrayList<>(this.members.size());
		for (Member member : this.members) {
			leases.add(watchdog.storeLease(member.request().fixedLease()));
		}
		return leases;
	}

	/**
	 * When each key's lease, from an attempt that began at {@code attemptStart}, ends.
	 */
	List<@Nullable Long> leaseEnds(Watchdog watchdog, long attemptStart) {
		List<@Nullable Long> ends = new ArrayList<>(this.members.size());
		for (Member member : this.members) {
			ends.add(watchdog.newLease(member.request().fixedLease(), attemptStart).endNanos());
		}
		return ends;
	}

	/**
	 * The keys as taken by the attempt that began at {@code attemptStart}, each held
	 * through its slot.
	 */
	List<HeldLock> hold(HeldLock.Parts parts, List<Long> fencingTokens, long attemptStart) {
		List<HeldLock> locks = new ArrayList<>(this.members.size());
		for (int i = 0; i < this.members.size(); i++) {
			Member member = this.members.get(i);
			Acquisition.Request request = member.request();
			Lease lease = parts.watchdog().newLease(request.fixedLease(), attemptStart, request.ownerChosen());
			HeldLock lock = new HeldLock(parts, member.slot(), request.claim(), fencingTokens.get(i),
					request.reentrancyOwner(), lease, request.minimumHold(), member.tracker(), attemptStart);
			member.slot().hold(lock);
			locks.add(lock);
		}
		return locks;
	}

	/** Lets go of every key in this JVM: its gate, if taken, and its table entry. */
	void leave() {
		for (LocalLocks.Slot slot : this.slots) {
			slot.leave(null);
		}
	}

	/**
	 * Tells each key's tracker that it was not taken: the call failed with
	 * {@code failure}, or, when it is {@code null}, the wait time passed. The last
	 * tracker first, as each may have opened a scope on the caller's thread (an
	 * observation's), which must close in the reverse order of opening.
	 */
	void notTaken(@Nullable Throwable failure) {
		for (int i = this.members.size() - 1; i >= 0; i--) {
			LockTracker tracker = this.members.get(i).tracker();
			if (failure != null) {
				tracker.failed(failure);
			}
			else if (this.members.get(i).request().skipWhenBusy()) {
				tracker.skipped();
			}
			else {
				tracker.notAcquired();
			}
		}
	}

	/**
	 * Tells each key's tracker that the acquisition goes on without its caller, in the
	 * reverse order of their creation, as each may close a scope opened on the caller's
	 * thread.
	 */
	void detached() {
		for (int i = this.members.size() - 1; i >= 0; i--) {
			this.members.get(i).tracker().detached();
		}
	}

	/**
	 * One key.
	 *
	 * @param slot this JVM's use of the key
	 * @param request what is asked for the key, under the call's deadline
	 * @param tracker follows the key's acquisition and hold
	 */
	record Member(LocalLocks.Slot slot, Acquisition.Request request, LockTracker tracker) {
	}

}
