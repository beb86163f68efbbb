package io.github.distributelock.core;

import io.github.distributelock.Closeables;
import io.github.distributelock.TestKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the contract tests of a store share: a backend of its own per instance, a key of
 * each test's own, the store read directly, and everything a test opens closed after it.
 */
public abstract class AbstractStoreContractTests {

	private final Closeables closeables = new Closeables();

	@RegisterExtension
	final TestKey key = new TestKey();

	/**
	 * A new backend with its own connection to the store, as another instance would have.
	 */
	protected abstract LockBackend newBackend();

	/**
	 * Whether anyone holds {@code key} in the store, read from the store and not through
	 * the lock.
	 */
	protected abstract boolean isLockedInStore(String key);

	/**
	 * Runs after the subclasses' own {@code @AfterEach} methods, as JUnit orders them.
	 */
	@AfterEach
	void closeAll() throws Exception {
		this.closeables.close();
	}

	/** The test's key, of this test alone. */
	protected String key() {
		return this.key.name();
	}

	/** Closes {@code closeable} after the test, after everything registered later. */
	protected <T extends AutoCloseable> T closeAfterTest(T closeable) {
		return this.closeables.add(closeable);
	}

	/** Closes {@code backend} after the test if it is closeable. */
	protected <B extends LockBackend> B trackBackend(B backend) {
		if (backend instanceof AutoCloseable closeable) {
			this.closeables.add(closeable);
		}
		return backend;
	}

}
