/**
 * The ZooKeeper backend on Apache Curator: an ephemeral node per lock that lives as long
 * as the client's session, owner-checked versioned deletes, release notifications by
 * watches, fencing tokens from the node's creation zxid.
 */
@NullMarked
package io.github.distributelock.zookeeper;

import org.jspecify.annotations.NullMarked;
