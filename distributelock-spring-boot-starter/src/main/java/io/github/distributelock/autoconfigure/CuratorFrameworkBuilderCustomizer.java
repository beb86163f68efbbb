package io.github.distributelock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Callback interface that can be implemented by beans wishing to customize the
 * {@link CuratorFrameworkFactory.Builder} of the {@link CuratorFramework} that the
 * auto-configuration builds from the {@code distributelock.zookeeper.*} properties, after
 * the properties are applied and before it is built. It is not called when the
 * application defines its own {@link CuratorFramework} bean.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface CuratorFrameworkBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder to customize
	 */
	void customize(CuratorFrameworkFactory.Builder builder);

}
