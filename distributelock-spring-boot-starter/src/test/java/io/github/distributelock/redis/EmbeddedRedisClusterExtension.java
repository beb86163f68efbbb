package io.github.distributelock.redis;

import java.time.Duration;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Redis Cluster of three masters and three replicas ({@link EmbeddedRedisCluster})
 * for the tests of one class and its {@code @Nested} classes: started before the first
 * test, stopped after the last one, also when tests fail. <pre class="code">
 * &#64;RegisterExtension
 * static final EmbeddedRedisClusterExtension redis = new EmbeddedRedisClusterExtension();
 * </pre> Tests that break the cluster call {@link EmbeddedRedisCluster#restore()} after
 * themselves, so that the next test finds it whole.
 */
public final class EmbeddedRedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

	private final Duration nodeTimeout;

	private EmbeddedRedisCluster cluster;

	/** The context that started the cluster, the only one that stops it. */
	private ExtensionContext owner;

	/** With the nodes' {@code cluster-node-timeout} at 2 s. */
	public EmbeddedRedisClusterExtension() {
		this(EmbeddedRedisCluster.DEFAULT_NODE_TIMEOUT);
	}

	/**
	 * @param nodeTimeout the nodes' {@code cluster-node-timeout}
	 */
	public EmbeddedRedisClusterExtension(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		// @Nested classes inherit the extension: they share the cluster of their
		// enclosing class.
		if (this.cluster == null) {
			this.cluster = EmbeddedRedisCluster.start(this.nodeTimeout);
			this.owner = context;
		}
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		if (context == this.owner && this.cluster != null) {
			try {
				this.cluster.close();
			}
			finally {
				this.cluster = null;
				this.owner = null;
			}
		}
	}

	public EmbeddedRedisCluster cluster() {
		return this.cluster;
	}

}
