package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.distributelock.core.LockLossListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * The loss signals of the locks of one Curator client, told to the
 * {@link LockLossListener listeners} from its connection state: at risk while the
 * connection is suspended, safe when it comes back within the session, lost with the
 * session.
 */
final class ZooKeeperLossSignals implements ConnectionStateListener {

	/** The backend's own category: these lines were always logged as its. */
	private static final Log logger = LogFactory.getLog(ZooKeeperLockBackend.class);

	private final List<LockLossListener> listeners = new CopyOnWriteArrayList<>();

	void add(LockLossListener listener) {
		this.listeners.add(listener);
	}

	void remove(LockLossListener listener) {
		this.listeners.remove(listener);
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState state) {
		if (state == ConnectionState.SUSPENDED) {
			tellListeners(state, (listener) -> listener.locksAtRisk("the connection to ZooKeeper is suspended; "
					+ "the locks are lost if the session expires before it comes back"));
		}
		else if (state == ConnectionState.RECONNECTED) {
			tellListeners(state,
					(listener) -> listener.locksSafe(
							"the connection to ZooKeeper is back within the session timeout; the session and its "
									+ "lock nodes are kept"));
		}
		else if (state == ConnectionState.LOST) {
			tellListeners(state, (listener) -> listener
				.locksLost("the ZooKeeper session was lost, and the server removes its ephemeral lock nodes"));
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("ZooKeeper connection of the lock backend is " + state);
		}
	}

	private void tellListeners(ConnectionState state, Consumer<LockLossListener> call) {
		for (LockLossListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock loss listener failed on ZooKeeper connection state " + state, ex);
			}
		}
	}

}
