package io.github.distributelock;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real store for the tests, as a JUnit extension: by default one for the whole test
 * run, started by the first class that registers the extension and kept in the root
 * context's store, which closes it when the run ends, also when tests fail; or one for a
 * class alone, for tests that stop and restart it, closed after its last test. Each class
 * starts with a store emptied of locks, so that a test that counts them sees only its
 * own.
 *
 * @param <S> the started store and the clients that read it
 */
public abstract class StoreExtension<S extends AutoCloseable> implements BeforeAllCallback {

	private final Class<S> type;

	private final String name;

	private final boolean shared;

	private @Nullable S store;

	/**
	 * @param type the type of the started store
	 * @param name the store's name, for messages
	 * @param shared whether the whole run shares the store, or the class has its own
	 */
	protected StoreExtension(Class<S> type, String name, boolean shared) {
		this.type = type;
		this.name = name;
		this.shared = shared;
	}

	@Override
	public final void beforeAll(ExtensionContext context) throws Exception {
		S started = (this.shared ? context.getRoot() : context).getStore(ExtensionContext.Namespace.create(getClass()))
			.computeIfAbsent(this.type, (key) -> start(), this.type);
		deleteAllLocks(started);
		this.store = started;
	}

	/** Starts the store. */
	protected abstract S start();

	/** Deletes every lock in {@code store}, for a class that starts. */
	protected abstract void deleteAllLocks(S store) throws Exception;

	/** The started store. */
	protected final S started() {
		if (this.store == null) {
			throw new IllegalStateException("No " + this.name + " yet: register the extension with "
					+ "@RegisterExtension on a static field, and use it from tests or @BeforeAll methods");
		}
		return this.store;
	}

	/** The started store, which only a class that has its own may stop. */
	protected final S stoppable() {
		if (this.shared) {
			throw new IllegalStateException("The shared " + this.name + " is never stopped: a class that stops "
					+ "its store registers an extension of its own (ofItsOwn())");
		}
		return started();
	}

}
