package io.github.distributelock.reactive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.LockKind;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The locks a reactive pipeline holds, carried in its Reactor {@code Context} so that a
 * nested lock on the same key enters at once, as a thread re-enters a lock it holds.
 */
final class HeldKeys {

	private static final Log logger = LogFactory.getLog(HeldKeys.class);

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
		if (held == null || !held.reentrant || !held.handle.isHeld()) {
			return null;
		}
		LockKind asked = LockKind.of(request);
		if (!held.kind.admitsReentryAs(asked)) {
			throw held.kind.reentryConflict(asked, request.key(), REACTIVE, "this reactive pipeline");
		}
		return new Reentered(held);
	}

	/**
	 * Whether {@code service} holds a key of {@code request} (its key, or a key of a
	 * multi-key request) for the pipeline in a way that a request without an owner value
	 * may re-enter, whichever kind.
	 */
	boolean holdsAnyReentrant(Object service, LockRequest request) {
		for (LockRequest part : request.isMultiKey() ? request.parts() : List.of(request)) {
			Held held = this.held.get(new Id(service, part.key()));
			if (held != null && held.reentrant && held.handle.isHeld()) {
				return true;
			}
		}
		return false;
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
	 * each key of a multi-key request. A hold taken with an owner value is owned by that
	 * value, and nothing nested re-enters it, as a thread does not.
	 */
	static Function<Context, Context> with(Object service, LockRequest request, LockHandle handle) {
		return (context) -> {
			Map<Id, Held> held = new HashMap<>(of(context).held);
			NestedLostListeners nestedLostListeners = new NestedLostListeners(handle);
			for (LockRequest part : request.isMultiKey() ? request.parts() : List.of(request)) {
				held.put(new Id(service, part.key()),
						new Held(handle, LockKind.of(part), request.owner() == null, nestedLostListeners));
			}
			return context.put(CONTEXT_KEY, new HeldKeys(Map.copyOf(held)));
		};
	}

	/**
	 * A key as one lock service knows it: two services may lock one key in two stores.
	 */
	private record Id(Object service, String key) {
	}

	/**
	 * One key the pipeline holds.
	 *
	 * @param reentrant whether a nested request may enter it: not when it was taken with
	 * an owner value
	 */
	private record Held(LockHandle handle, LockKind kind, boolean reentrant, NestedLostListeners nestedLostListeners) {
	}

	/**
	 * A nested entry: closing it leaves the enclosing hold alone, as closing a reentrant
	 * handle does, and ends the entry itself: it is no longer held, and its lost-lock
	 * listeners are forgotten.
	 */
	private static final class Reentered implements LockHandle {

		private final Held enclosing;

		private final AtomicBoolean closed = new AtomicBoolean();

		Reentered(Held enclosing) {
			this.enclosing = enclosing;
		}

		@Override
		public String key() {
			return this.enclosing.handle.key();
		}

		@Override
		public long fencingToken() {
			return this.enclosing.handle.fencingToken();
		}

		@Override
		public boolean isClosed() {
			return this.closed.get();
		}

		@Override
		public boolean isHeld() {
			return !this.closed.get() && this.enclosing.handle.isHeld();
		}

		@Override
		public boolean isSuspect() {
			return isHeld() && this.enclosing.handle.isSuspect();
		}

		@Override
		public LockHandle onLost(Consumer<LockHandle> listener) {
			if (!this.closed.get()) {
				this.enclosing.nestedLostListeners.add(this, listener);
			}
			return this;
		}

		@Override
		public CompletableFuture<Void> releaseAsync() {
			close();
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void close() {
			if (this.closed.compareAndSet(false, true)) {
				this.enclosing.nestedLostListeners.removeAll(this);
			}
		}

	}

	/**
	 * The lost-lock listeners of the entries nested in one hold, told through one
	 * listener on that hold's handle: its own listeners cannot be taken off it, and a
	 * long hold would otherwise keep those of every nested entry closed meanwhile.
	 */
	private static final class NestedLostListeners {

		private final LockHandle enclosing;

		private final List<NestedListener> listeners = new CopyOnWriteArrayList<>();

		/**
		 * Whether the one listener on the enclosing handle is registered and not told
		 * yet.
		 */
		private final AtomicBoolean forwarding = new AtomicBoolean();

		NestedLostListeners(LockHandle enclosing) {
			this.enclosing = enclosing;
		}

		void add(Reentered nested, Consumer<LockHandle> listener) {
			this.listeners.add(new NestedListener(nested, listener));
			// Registered again after a loss was told: the handle then tells it at once.
			if (this.forwarding.compareAndSet(false, true)) {
				this.enclosing.onLost((lost) -> tellAll());
			}
		}

		void removeAll(Reentered nested) {
			this.listeners.removeIf((listener) -> listener.nested == nested);
		}

		private void tellAll() {
			this.forwarding.set(false);
			for (NestedListener listener : this.listeners) {
				if (this.listeners.remove(listener)) {
					tell(listener);
				}
			}
		}

	}

	private static void tell(NestedListener listener) {
		try {
			listener.listener.accept(listener.nested);
		}
		catch (RuntimeException | Error ex) {
			// Logged; the next listener is still told, as the lock service does.
			logger.warn("Lost-lock listener for '" + listener.nested.key() + "' failed", ex);
		}
	}

	private record NestedListener(Reentered nested, Consumer<LockHandle> listener) {
	}

}
