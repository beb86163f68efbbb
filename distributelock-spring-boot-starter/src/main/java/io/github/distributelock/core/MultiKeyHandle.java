package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * The handle of several keys: closed once; held while every key is; lost when any key is.
 * <p>
 * Keys taken one after the other are released one after the other, in the reverse order.
 * Keys taken in one call to the store ({@link MultiKeyLockBackend}) are released in one
 * call too: each key's hold is given back as its own handle's would be, and the releases
 * in the store that this brings about are sent together.
 */
final class MultiKeyHandle implements LockHandle {

	private final String key;

	private final List<LockHandle> handles;

	/** The store, when the keys are released in one call; else {@code null}. */
	private final @Nullable StoreCalls batchedStore;

	/** The outcome of the release that closed this handle. */
	private final HandleRelease release = new HandleRelease();

	/**
	 * @param handles each key's handle, in the order they were taken; {@link Handle}s
	 * when {@code batchedStore} is given
	 * @param batchedStore the store to release the keys through in one call, or
	 * {@code null} to release them one after the other
	 */
	MultiKeyHandle(String key, List<LockHandle> handles, @Nullable StoreCalls batchedStore) {
		this.key = key;
		this.handles = List.copyOf(handles);
		this.batchedStore = batchedStore;
	}

	/**
	 * The handles of the keys, in the order they were taken.
	 * @return the handles
	 */
	List<LockHandle> handles() {
		return this.handles;
	}

	@Override
	public String key() {
		return this.key;
	}

	/**
	 * The highest fencing token of the keys; each key's own token is on its handle.
	 */
	@Override
	public long fencingToken() {
		return this.handles.stream().mapToLong(LockHandle::fencingToken).max().orElse(0);
	}

	@Override
	public boolean isClosed() {
		return this.release.closed();
	}

	@Override
	public boolean isHeld() {
		return !this.release.closed() && this.handles.stream().allMatch(LockHandle::isHeld);
	}

	@Override
	public boolean isSuspect() {
		return isHeld() && this.handles.stream().anyMatch(LockHandle::isSuspect);
	}

	@Override
	public LockHandle onLost(Consumer<LockHandle> listener) {
		AtomicBoolean told = new AtomicBoolean();
		for (LockHandle handle : this.handles) {
			handle.onLost((lost) -> {
				if (told.compareAndSet(false, true)) {
					listener.accept(this);
				}
			});
		}
		return this;
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		CompletableFuture<@Nullable Void> outcome = new CompletableFuture<>();
		CompletableFuture<@Nullable Void> earlier = this.release.closeOnce(outcome);
		if (earlier != null) {
			return earlier;
		}
		// A copy: the caller may cancel it (a cancelled subscription does) or complete it
		// (orTimeout) without stopping the releases of the keys not yet sent, which the
		// keys taken one after the other chain to it.
		return HandleRelease.endsWith(releaseEachAsync(), outcome).copy();
	}

	private CompletableFuture<Void> releaseEachAsync() {
		StoreCalls store = this.batchedStore;
		if (store != null) {
			return releaseTogether(store, null);
		}
		CompletableFuture<Void> released = CompletableFuture.completedFuture(null);
		for (int i = this.handles.size() - 1; i >= 0; i--) {
			LockHandle handle = this.handles.get(i);
			released = released.handle((done, failure) -> failure)
				.thenCompose((failure) -> handle.releaseAsync().handle((done, next) -> {
					Throwable first = (failure != null) ? failure : next;
					if (first != null) {
						throw StoreCalls.asUnchecked(first);
					}
					return null;
				}));
		}
		return released;
	}

	@Override
	public void close() {
		CompletableFuture<@Nullable Void> outcome = new CompletableFuture<>();
		CompletableFuture<@Nullable Void> earlier = this.release.closeOnce(outcome);
		if (earlier != null) {
			if (this.handles.get(0) instanceof Handle part) {
				part.awaitEarlierRelease(earlier, this.key);
			}
			return;
		}
		StoreCalls store = this.batchedStore;
		if (onTheStoresAnswerThread()) {
			// Waiting here would wait for an answer that this very thread delivers. The
			// outcome still ends with the releases, which a later close() waits for.
			HandleRelease.endsWith(releaseEachAsync(), outcome);
			return;
		}
		try {
			closeEach(store);
		}
		catch (RuntimeException ex) {
			outcome.completeExceptionally(ex);
			throw ex;
		}
		outcome.complete(null);
	}

	private boolean onTheStoresAnswerThread() {
		StoreCalls store = this.batchedStore;
		if (store != null) {
			return store.deliversAnswersOnThisThread();
		}
		return this.handles.get(0) instanceof Handle part && part.onTheStoresAnswerThread();
	}

	/** Releases every key on the calling thread, and waits for the releases. */
	private void closeEach(@Nullable StoreCalls store) {
		if (store != null) {
			// On the calling thread, which a blocking store's statement runs on too; an
			// interrupt neither stops the release nor is lost.
			CallerRuns callerRuns = store.callerRuns();
			try {
				callerRuns.awaitUninterruptibly(releaseTogether(store, callerRuns.forRelease()));
			}
			catch (ExecutionException ex) {
				throw StoreCalls.asUnchecked(ex);
			}
			return;
		}
		RuntimeException first = null;
		for (int i = this.handles.size() - 1; i >= 0; i--) {
			try {
				this.handles.get(i).close();
			}
			catch (RuntimeException ex) {
				first = (first != null) ? first : ex;
			}
		}
		if (first != null) {
			throw first;
		}
	}

	/**
	 * Gives back each key's hold, the last taken first, with the store's releases sent in
	 * one call; completes once all have ended, exceptionally with the first failure in
	 * that order.
	 */
	private CompletableFuture<Void> releaseTogether(StoreCalls store, @Nullable Executor callerExecutor) {
		MultiKeyRelease batch = new MultiKeyRelease(store);
		List<CompletableFuture<Boolean>> releases = new ArrayList<>();
		for (int i = this.handles.size() - 1; i >= 0; i--) {
			releases.add(((Handle) this.handles.get(i)).releaseHold(callerExecutor, batch));
		}
		batch.send();
		return CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new)).handle((done, failure) -> {
			for (CompletableFuture<Boolean> keyRelease : releases) {
				if (keyRelease.isCompletedExceptionally()) {
					throw StoreCalls.asUnchecked(keyRelease.handle((value, each) -> each).join());
				}
			}
			return null;
		});
	}

	@Override
	public String toString() {
		return "LockHandle[keys=" + this.key + ", held=" + isHeld() + "]";
	}

}
