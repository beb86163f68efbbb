package io.github.distributelock.reactive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.LockKind;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The locks a reactive pipeline holds, carried in its Reactor {@code Context} so that a
 * nested lock on the same key enters at once, as a thread re-enters a lock it holds.
 */
final class HeldKeys {

	private static final Object CONTEXT_KEY = HeldKeys.class;

	/**
	 * The backend a conflict names: the pipeline's hold is known here, not the store's.
	 */
	private static final String REACTIVE = "reactive pipeline";

	private static final HeldKeys NONE = new HeldKeys(Map.of());

	private final Map<Id, Held> held;

	private HeldKeys(Map<Id, Held> held) {
		this.held = held;
	}

	static HeldKeys of(ContextView context) {
		return context.getOrDefault(CONTEXT_KEY, NONE);
	}

	/**
	 * The lock that {@code service} holds for the pipeline on the key of a single-key
	 * {@code request}, to re-enter, while it is still held.
	 * @throws LockKindConflictException if it is held as a kind the request cannot join,
	 * which waiting would never end
	 */
	@Nullable LockHandle reentered(Object service, LockRequest request) {
		Held held = this.held.get(new Id(service, request.key()));
		if (held == null || !held.handle.isHeld()) {
			return null;
		}
		LockKind asked = LockKind.of(request);
		if (!held.kind.admitsReentryAs(asked)) {
			throw held.kind.reentryConflict(asked, request.key(), REACTIVE, "this reactive pipeline");
		}
		return new Reentered(held.handle);
	}

	/** Whether a lock service holds {@code key} for the pipeline, whichever kind. */
	boolean holds(String key) {
		return this.held.entrySet()
			.stream()
			.anyMatch((entry) -> entry.getKey().key().equals(key) && entry.getValue().handle().isHeld());
	}

	/**
	 * The parts of a multi-key {@code request} that {@code service} does not hold for the
	 * pipeline yet; all of them when it holds none.
	 * @throws LockKindConflictException if a part is held as a kind it cannot join
	 */
	List<LockRequest> notHeld(Object service, LockRequest request) {
		List<LockRequest> missing = new ArrayList<>();
		for (LockRequest part : request.parts()) {
			if (reentered(service, part) == null) {
				missing.add(part);
			}
		}
		return missing;
	}

	/**
	 * Adds what {@code request} holds through {@code handle} to the context: its key, or
	 * each key of a multi-key request.
	 */
	static Function<Context, Context> with(Object service, LockRequest request, LockHandle handle) {
		return (context) -> {
			Map<Id, Held> held = new HashMap<>(of(context).held);
			for (LockRequest part : request.isMultiKey() ? request.parts() : List.of(request)) {
				held.put(new Id(service, part.key()), new Held(handle, LockKind.of(part)));
			}
			return context.put(CONTEXT_KEY, new HeldKeys(Map.copyOf(held)));
		};
	}

	/**
	 * A key as one lock service knows it: two services may lock one key in two stores.
	 */
	private record Id(Object service, String key) {
	}

	private record Held(LockHandle handle, LockKind kind) {
	}

	/**
	 * A nested entry: closing it leaves the enclosing hold alone, as closing a reentrant
	 * handle does.
	 */
	private record Reentered(LockHandle lock) implements LockHandle {

		@Override
		public String key() {
			return this.lock.key();
		}

		@Override
		public long fencingToken() {
			return this.lock.fencingToken();
		}

		@Override
		public boolean isHeld() {
			return this.lock.isHeld();
		}

		@Override
		public boolean isSuspect() {
			return this.lock.isSuspect();
		}

		@Override
		public LockHandle onLost(Consumer<LockHandle> listener) {
			this.lock.onLost(listener);
			return this;
		}

		@Override
		public CompletableFuture<Void> releaseAsync() {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void close() {
		}

	}

}
