package io.github.distributelock.reactive;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The locks a reactive pipeline holds, carried in its Reactor {@code Context} so that a
 * nested lock on the same key enters at once, as a thread re-enters a lock it holds.
 */
final class HeldKeys {

	private static final Object CONTEXT_KEY = HeldKeys.class;

	private static final HeldKeys NONE = new HeldKeys(Map.of());

	private final Map<String, LockHandle> handles;

	private HeldKeys(Map<String, LockHandle> handles) {
		this.handles = handles;
	}

	static HeldKeys of(ContextView context) {
		return context.getOrDefault(CONTEXT_KEY, NONE);
	}

	/** The held lock of {@code key} while it is still held. */
	@Nullable LockHandle handle(String key) {
		LockHandle handle = this.handles.get(key);
		return (handle != null && handle.isHeld()) ? new Reentered(handle) : null;
	}

	/** Adds {@code key} to what the context holds. */
	static Function<Context, Context> with(String key, LockHandle handle) {
		return (context) -> {
			Map<String, LockHandle> held = new HashMap<>(of(context).handles);
			held.put(key, handle);
			return context.put(CONTEXT_KEY, new HeldKeys(Map.copyOf(held)));
		};
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
