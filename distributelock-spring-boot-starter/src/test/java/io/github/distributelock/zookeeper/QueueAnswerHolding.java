package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.stream.StreamSupport;

import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Handles that hold back the answer of the first transaction creating a queue, or of the
 * first listing of a queue, so that a test can change the client's session or the server
 * before the claim reads it.
 */
final class QueueAnswerHolding {

	private QueueAnswerHolding() {
	}

	/**
	 * Handles whose first successful transaction creating {@code queue} hands its answer
	 * to {@code heldAnswer}, to be run by the test; every other call is answered as
	 * usual.
	 */
	static ZookeeperFactory handles(String queue, CompletableFuture<Runnable> heldAnswer) {
		return (connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString, sessionTimeout,
				watcher, canBeReadOnly) {

			@Override
			public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
				boolean createsQueue = StreamSupport.stream(ops.spliterator(), false)
					.anyMatch((op) -> op.getType() == ZooDefs.OpCode.createContainer && op.getPath().equals(queue));
				if (!createsQueue || heldAnswer.isDone()) {
					super.multi(ops, callback, context);
					return;
				}
				super.multi(ops, (code, path, answerContext, results) -> {
					if (code != KeeperException.Code.OK.intValue()
							|| !heldAnswer.complete(() -> callback.processResult(code, path, answerContext, results))) {
						callback.processResult(code, path, answerContext, results);
					}
				}, context);
			}

		};
	}

	/**
	 * Handles whose first successful listing of {@code queue} hands its answer to
	 * {@code heldAnswer}, to be run by the test; every other call is answered as usual.
	 */
	static ZookeeperFactory listings(String queue, CompletableFuture<Runnable> heldAnswer) {
		return (connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString, sessionTimeout,
				watcher, canBeReadOnly) {

			@Override
			public void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback callback,
					Object context) {
				if (!path.equals(queue) || heldAnswer.isDone()) {
					super.getChildren(path, watch, callback, context);
					return;
				}
				super.getChildren(path, watch, (code, answerPath, answerContext, children) -> {
					if (code != KeeperException.Code.OK.intValue() || !heldAnswer
						.complete(() -> callback.processResult(code, answerPath, answerContext, children))) {
						callback.processResult(code, answerPath, answerContext, children);
					}
				}, context);
			}

		};
	}

}
