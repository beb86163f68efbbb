package io.github.distributelock.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One {@code LISTEN}ing connection of a backend on PostgreSQL, shared by all its waiters:
 * a dedicated thread blocks in {@link PGConnection#getNotifications(int)} and wakes the
 * waiters of each key whose release is notified. No waiter's thread blocks.
 * <p>
 * The connection is borrowed from the backend's {@link DataSource} when the first waiter
 * comes and given back once nobody has waited for {@link #IDLE_MILLIS}. When it fails,
 * the waiters are woken (they poll until it is back) and it is opened again with
 * back-off.
 * <p>
 * Each notification and each (re)connection advances a generation. An attempt records the
 * generation it started at; a waiter registered after it completes at once if its key (or
 * a key sharing its slot) was notified since, or if the connection was opened since, as a
 * notification may have been missed in between.
 */
final class PostgresReleaseListener implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PostgresReleaseListener.class);

	/** PostgreSQL's longest identifier, which a channel name is. */
	static final int LONGEST_CHANNEL = 63;

	/** How long the thread waits for notifications before it checks its state. */
	private static final int RECEIVE_MILLIS = 500;

	/** How long a connection may stay silent before it is checked. */
	private static final long CHECK_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** How long the connection is kept without waiters before it is given back. */
	static final long IDLE_MILLIS = 60_000;

	private static final long FIRST_RETRY_MILLIS = 100;

	private static final long LONGEST_RETRY_MILLIS = 5_000;

	private static final int SLOTS = 4096;

	private final DataSource dataSource;

	private final String channel;

	private final String description;

	private final AtomicLong generation = new AtomicLong();

	/** The generation of the last notification of any key in each slot. */
	private final AtomicLongArray notified = new AtomicLongArray(SLOTS);

	private final Map<String, Set<Runnable>> waiters = new ConcurrentHashMap<>();

	private final CountDownLatch closed = new CountDownLatch(1);

	private volatile long listeningSince = Long.MAX_VALUE;

	private volatile long lastUseNanos = System.nanoTime();

	private volatile @Nullable Thread thread;

	/**
	 * Guards starting and stopping the listening thread; not a monitor, for virtual
	 * threads.
	 */
	private final ReentrantLock threadChange = new ReentrantLock();

	private volatile @Nullable Integer backendPid;

	private final AtomicLong wakeUps = new AtomicLong();

	private volatile boolean warned;

	PostgresReleaseListener(DataSource dataSource, String tableName) {
		this.dataSource = dataSource;
		this.channel = channel(tableName);
		this.description = "the LISTEN connection for the releases of lock table " + tableName;
	}

	/**
	 * The channel of a lock table: its name, shortened with a hash when it is longer than
	 * a PostgreSQL identifier.
	 */
	static String channel(String tableName) {
		if (tableName.length() <= LONGEST_CHANNEL) {
			return tableName;
		}
		CRC32 crc = new CRC32();
		crc.update(tableName.getBytes(StandardCharsets.UTF_8));
		String hash = String.format("%08x", crc.getValue());
		return tableName.substring(0, LONGEST_CHANNEL - hash.length() - 1) + "_" + hash;
	}

	String channel() {
		return this.channel;
	}

	/** The generation now, for an attempt to record before it runs. */
	long generation() {
		return this.generation.get();
	}

	/** Whether the connection listens now; starts it if nobody had waited lately. */
	boolean listening() {
		this.lastUseNanos = System.nanoTime();
		startIfStopped();
		return this.listeningSince != Long.MAX_VALUE;
	}

	/**
	 * Registers {@code wake} for the next notification of {@code key}, unless a
	 * notification the attempt at {@code since} may not have seen came already.
	 * @return whether it was registered; if not, the waiter should attempt again now
	 */
	boolean register(String key, long since, Runnable wake) {
		this.lastUseNanos = System.nanoTime();
		this.waiters.computeIfAbsent(key, (k) -> ConcurrentHashMap.newKeySet()).add(wake);
		// Read after registering: a notification either saw the waiter or left its mark.
		boolean notifiedSince = this.notified.get(slot(key)) > since;
		if (this.listeningSince > since || notifiedSince) {
			unregister(key, wake);
			if (notifiedSince) {
				// A wait a notification ended, as if it had woken the waiter.
				this.wakeUps.incrementAndGet();
			}
			return false;
		}
		return true;
	}

	void unregister(String key, Runnable wake) {
		this.waiters.computeIfPresent(key, (k, wakes) -> (wakes.remove(wake) && wakes.isEmpty()) ? null : wakes);
	}

	/** The server process of the listening connection, for tests. */
	@Nullable Integer backendPid() {
		return this.backendPid;
	}

	private void startIfStopped() {
		this.threadChange.lock();
		try {
			if (this.thread == null && this.closed.getCount() > 0) {
				Thread started = new Thread(this::run, "distributelock-jdbc-listen");
				started.setDaemon(true);
				this.thread = started;
				started.start();
			}
		}
		finally {
			this.threadChange.unlock();
		}
	}

	private boolean stopIfIdle() {
		this.threadChange.lock();
		try {
			boolean idle = this.waiters.isEmpty()
					&& System.nanoTime() - this.lastUseNanos > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
			if (idle || this.closed.getCount() == 0) {
				this.thread = null;
				return true;
			}
			return false;
		}
		finally {
			this.threadChange.unlock();
		}
	}

	private void run() {
		long retryMillis = FIRST_RETRY_MILLIS;
		while (!stopIfIdle()) {
			Connection connection = null;
			try {
				connection = this.dataSource.getConnection();
				listen(connection);
				retryMillis = FIRST_RETRY_MILLIS;
				receive(connection, connection.unwrap(PGConnection.class));
				stopListening(connection);
			}
			catch (SQLException | RuntimeException ex) {
				discard(connection, ex);
				stopped(ex);
				long pause = retryMillis / 2 + ThreadLocalRandom.current().nextLong(retryMillis / 2 + 1);
				retryMillis = Math.min(retryMillis * 2, LONGEST_RETRY_MILLIS);
				awaitClose(pause);
			}
			finally {
				this.listeningSince = Long.MAX_VALUE;
				this.backendPid = null;
				close(connection);
			}
		}
		wakeAll();
	}

	/**
	 * Aborts a connection that failed, so that its pool does not hand it out again: the
	 * failure came through the driver's own connection, which the pool does not watch.
	 */
	private static void discard(@Nullable Connection connection, Exception failure) {
		if (connection != null) {
			try {
				connection.abort(Runnable::run);
			}
			catch (SQLException | RuntimeException ex) {
				failure.addSuppressed(ex);
			}
		}
	}

	private static void close(@Nullable Connection connection) {
		if (connection != null) {
			try {
				connection.close();
			}
			catch (SQLException | RuntimeException ex) {
				// Aborted after a failure already reported, or being given back: nothing
				// is lost.
				logger.debug("Could not close the LISTEN connection", ex);
			}
		}
	}

	private void listen(Connection connection) throws SQLException {
		if (!connection.isWrapperFor(PGConnection.class)) {
			throw new SQLException("the DataSource's connections are not PostgreSQL JDBC driver connections");
		}
		try (Statement statement = connection.createStatement()) {
			// The channel is the validated table name, quoted: never a key or a value.
			statement.execute("LISTEN \"" + this.channel + "\"");
		}
		if (!connection.getAutoCommit()) {
			// LISTEN takes effect at commit.
			connection.commit();
		}
		this.backendPid = connection.unwrap(PGConnection.class).getBackendPID();
		this.listeningSince = this.generation.incrementAndGet();
		if (this.warned) {
			this.warned = false;
			logger.info("Listening again on " + this.description + "; waiters are woken by releases");
		}
	}

	/**
	 * Ends the LISTEN before the connection goes back to the application's pool: a pooled
	 * connection that still listened would buffer every notification of the lock table
	 * for whoever borrows it next, for as long as it lives. A connection that cannot stop
	 * listening is aborted, so that the pool replaces it rather than hands it out.
	 */
	private void stopListening(Connection connection) {
		try {
			try (Statement statement = connection.createStatement()) {
				statement.execute("UNLISTEN *");
			}
			if (!connection.getAutoCommit()) {
				// UNLISTEN, like LISTEN, takes effect at commit.
				connection.commit();
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not stop listening on " + this.description
					+ " before giving it back to its pool, so it is aborted instead: " + ex.getMessage());
			if (logger.isDebugEnabled()) {
				logger.debug("UNLISTEN failed on " + this.description, ex);
			}
			discard(connection, ex);
		}
	}

	/** Receives until the connection fails, the listener closes or nobody waits. */
	private void receive(Connection connection, PGConnection listening) throws SQLException {
		long lastHeard = System.nanoTime();
		while (this.closed.getCount() > 0 && !idle()) {
			PGNotification[] notifications = listening.getNotifications(RECEIVE_MILLIS);
			if (notifications != null && notifications.length > 0) {
				lastHeard = System.nanoTime();
				for (PGNotification notification : notifications) {
					if (this.channel.equals(notification.getName())) {
						released(notification.getParameter());
					}
				}
			}
			else if (System.nanoTime() - lastHeard > CHECK_AFTER_NANOS) {
				// A peer that vanished without closing the socket sends nothing more.
				if (!connection.isValid(5)) {
					throw new SQLException("the connection no longer answers");
				}
				lastHeard = System.nanoTime();
			}
		}
	}

	private boolean idle() {
		return this.waiters.isEmpty()
				&& System.nanoTime() - this.lastUseNanos > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
	}

	private void released(String key) {
		long released = this.generation.incrementAndGet();
		this.notified.accumulateAndGet(slot(key), released, Math::max);
		Set<Runnable> wakes = this.waiters.remove(key);
		if (wakes != null) {
			this.wakeUps.addAndGet(wakes.size());
			wake(key, wakes);
		}
	}

	/** Wakes waiters, each on its own executor; one whose executor stopped is skipped. */
	private static void wake(String key, Set<Runnable> wakes) {
		for (Runnable wake : wakes) {
			try {
				wake.run();
			}
			catch (RuntimeException ex) {
				// Its lock service is shutting down, which ends its wait anyway.
				logger.debug("Could not wake a waiter for lock '" + key + "'", ex);
			}
		}
	}

	/**
	 * How many waits a notification ended, for tests: of the waiters it woke, and of
	 * those that registered after it came and attempt again at once.
	 */
	long wakeUps() {
		return this.wakeUps.get();
	}

	private void stopped(Exception ex) {
		wakeAll();
		if (this.closed.getCount() == 0) {
			return;
		}
		if (!this.warned) {
			this.warned = true;
			logger.warn("Lost or could not open " + this.description + ", so waiters poll the table until it is "
					+ "back: " + ex.getMessage());
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Could not open " + this.description, ex);
		}
	}

	/** Wakes every waiter, which then attempts again and polls while nobody listens. */
	private void wakeAll() {
		this.listeningSince = Long.MAX_VALUE;
		for (String key : this.waiters.keySet()) {
			Set<Runnable> wakes = this.waiters.remove(key);
			if (wakes != null) {
				wake(key, wakes);
			}
		}
	}

	private void awaitClose(long millis) {
		try {
			this.closed.await(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static int slot(String key) {
		return key.hashCode() & (SLOTS - 1);
	}

	@Override
	public void close() {
		// The thread sees it within RECEIVE_MILLIS, and gives its connection back.
		this.closed.countDown();
		wakeAll();
	}

}
