package io.github.distributelock;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A lock key of each test's own, named after its class and method, so that tests sharing
 * a store never meet on a key: <pre class="code">
 * &#64;RegisterExtension
 * final TestKey key = new TestKey();
 * </pre>
 */
public final class TestKey implements BeforeEachCallback {

	private String name;

	@Override
	public void beforeEach(ExtensionContext context) {
		this.name = context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName()
				+ "." + System.nanoTime();
	}

	/** The key of the running test. */
	public String name() {
		return this.name;
	}

}
