package io.github.distributelock.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on a free loopback port in front of a server, for partition tests: it can
 * delay what it forwards, cut every connection (and refuse new ones) until restored, or
 * blackhole the traffic until healed.
 */
final class TcpProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final int targetPort;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile boolean cut;

	/** Guards {@link #blackholed}, and wakes the pumps it holds when it changes. */
	private final Object traffic = new Object();

	private boolean blackholed;

	private boolean closed;

	private volatile long latencyMillis;

	/** What the next chunk to hold contains; guarded by {@link #traffic}. */
	private byte @Nullable [] holdPattern;

	/** Whether a chunk is held; guarded by {@link #traffic}. */
	private boolean holding;

	private volatile byte @Nullable [] watchedPattern;

	/** Chunks read that contain the watched pattern, on a connection held or not. */
	private final AtomicInteger watchedReadOnHeld = new AtomicInteger();

	private final AtomicInteger watchedReadOnFree = new AtomicInteger();

	private TcpProxy(ServerSocket listener, int targetPort) {
		this.listener = listener;
		this.targetPort = targetPort;
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** Starts a proxy to {@code 127.0.0.1:targetPort}. */
	static TcpProxy start(int targetPort) {
		try {
			ServerSocket listener = new ServerSocket();
			listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
			return new TcpProxy(listener, targetPort);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	int port() {
		return this.listener.getLocalPort();
	}

	/** Delays every chunk forwarded in either direction by {@code latency}. */
	void latency(Duration latency) {
		this.latencyMillis = latency.toMillis();
	}

	/**
	 * Closes every connection, and closes new ones as soon as they come, until restored.
	 */
	void cut() {
		this.cut = true;
		closeConnections();
	}

	/** Forwards new connections again. */
	void restore() {
		this.cut = false;
	}

	/**
	 * Starts a silent partition: every connection, old or new, stays open, but nothing
	 * passes in either direction, not even a close (no FIN or RST reaches either side),
	 * so clients notice only by their own timeouts. New connections are accepted, as the
	 * proxy's kernel completes their handshake anyway, and are held the same way.
	 * <p>
	 * What is held back is not thrown away: TCP retransmits lost segments, so a real
	 * partition delays the bytes of a connection rather than cutting a gap into its
	 * stream (which no network does, and which would desynchronise the protocols on it).
	 * When the partition {@link #heal() heals}, the held bytes and closes are delivered
	 * in order, as retransmissions would be.
	 */
	void blackhole() {
		synchronized (this.traffic) {
			this.blackholed = true;
		}
	}

	/**
	 * Ends a {@link #blackhole()}: what was held back is delivered, and traffic flows.
	 */
	void heal() {
		synchronized (this.traffic) {
			this.blackholed = false;
			this.traffic.notifyAll();
		}
	}

	/**
	 * Holds the next chunk that contains {@code pattern}, and every chunk after it on its
	 * connection in its direction (a TCP stream keeps its order), until
	 * {@link #releaseHeld()}; other connections flow.
	 */
	void holdNextChunkContaining(byte[] pattern) {
		synchronized (this.traffic) {
			this.holdPattern = pattern;
		}
	}

	/** Whether a chunk is held by {@link #holdNextChunkContaining}. */
	boolean holding() {
		synchronized (this.traffic) {
			return this.holding;
		}
	}

	/** Forwards the held chunk and what came after it. */
	void releaseHeld() {
		synchronized (this.traffic) {
			this.holding = false;
			this.traffic.notifyAll();
		}
	}

	/**
	 * Counts from now the chunks read that contain {@code pattern}, telling those that
	 * wait behind a held chunk of their connection from the others.
	 */
	void watch(byte[] pattern) {
		this.watchedPattern = pattern;
	}

	/** How many chunks read contain the watched pattern and wait behind a held chunk. */
	int watchedHeld() {
		return this.watchedReadOnHeld.get();
	}

	/**
	 * How many chunks read contain the watched pattern and are forwarded as they come.
	 */
	int watchedFree() {
		return this.watchedReadOnFree.get();
	}

	private void accept() {
		while (!this.listener.isClosed()) {
			Socket client;
			try {
				client = this.listener.accept();
			}
			catch (IOException ex) {
				return;
			}
			if (this.cut) {
				closeQuietly(client);
				continue;
			}
			try {
				Socket server = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				this.sockets.add(client);
				this.sockets.add(server);
				pump(client, server);
				pump(server, client);
			}
			catch (IOException ex) {
				closeQuietly(client);
			}
		}
	}

	/**
	 * Forwards {@code from} to {@code to} as a delay line: each chunk leaves
	 * {@link #latency} after it came, whatever came before it, as on a network, where
	 * latency delays packets without queueing one behind another's delay. A request sent
	 * just after another therefore arrives just after it, not a latency later.
	 */
	private void pump(Socket from, Socket to) {
		BlockingQueue<Chunk> line = new LinkedBlockingQueue<>();
		AtomicBoolean held = new AtomicBoolean();
		Thread reader = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			long endsAt = System.nanoTime();
			// Not closed here: closing it would close the socket, and with it the other
			// direction, before this one's last chunks are due. The writer closes both.
			try {
				InputStream in = from.getInputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					byte[] bytes = Arrays.copyOf(buffer, read);
					countIfWatched(bytes, held.get());
					line.add(new Chunk(bytes, dueFromNow()));
				}
				// The end of the stream travels like the bytes before it.
				endsAt = dueFromNow();
			}
			catch (IOException ex) {
				// Cut, or closed by either side: the writer ends as soon as the chunks
				// before it are out, and closes both sockets.
			}
			finally {
				line.add(new Chunk(null, endsAt));
			}
		}, "tcp-proxy-read-" + from.getPort());
		Thread writer = new Thread(() -> {
			try (OutputStream out = to.getOutputStream()) {
				Chunk chunk = line.take();
				while (chunk.bytes() != null) {
					holdIfMatching(chunk.bytes(), held);
					holdUntilDue(chunk);
					out.write(chunk.bytes());
					out.flush();
					chunk = line.take();
				}
				// The end of the stream, too, waits for a blackhole to heal.
				holdUntilDue(chunk);
			}
			catch (IOException ex) {
				// Cut, or closed by either side.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "tcp-proxy-write-" + to.getPort());
		reader.setDaemon(true);
		writer.setDaemon(true);
		reader.start();
		writer.start();
	}

	private void countIfWatched(byte[] bytes, boolean onHeld) {
		byte[] pattern = this.watchedPattern;
		if (pattern != null && contains(bytes, pattern)) {
			(onHeld ? this.watchedReadOnHeld : this.watchedReadOnFree).incrementAndGet();
		}
	}

	/** Holds the calling pump on the chunk to hold, until released or closed. */
	private void holdIfMatching(byte[] bytes, AtomicBoolean held) throws InterruptedException {
		synchronized (this.traffic) {
			byte[] pattern = this.holdPattern;
			if (pattern == null || !contains(bytes, pattern)) {
				return;
			}
			this.holdPattern = null;
			this.holding = true;
			held.set(true);
			while (this.holding && !this.closed) {
				this.traffic.wait();
			}
			held.set(false);
		}
	}

	private static boolean contains(byte[] bytes, byte[] pattern) {
		for (int i = 0; i + pattern.length <= bytes.length; i++) {
			if (Arrays.equals(bytes, i, i + pattern.length, pattern, 0, pattern.length)) {
				return true;
			}
		}
		return false;
	}

	private long dueFromNow() {
		return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.latencyMillis);
	}

	/** Holds a chunk while the traffic is blackholed, and until it is due. */
	private void holdUntilDue(Chunk chunk) throws InterruptedException {
		awaitTraffic();
		long early = chunk.dueNanos() - System.nanoTime();
		if (early > 0) {
			// The latency is the fault being simulated.
			TimeUnit.NANOSECONDS.sleep(early);
		}
	}

	/** Holds the calling pump while the traffic is blackholed, until healed or closed. */
	private void awaitTraffic() throws InterruptedException {
		synchronized (this.traffic) {
			while (this.blackholed && !this.closed) {
				this.traffic.wait();
			}
		}
	}

	private void closeConnections() {
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
	}

	private void closeQuietly(Socket socket) {
		this.sockets.remove(socket);
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

	@Override
	public void close() throws IOException {
		synchronized (this.traffic) {
			this.closed = true;
			this.traffic.notifyAll();
		}
		this.listener.close();
		closeConnections();
	}

	/** Bytes read, and when they are to be written; no bytes: the end of the stream. */
	private record Chunk(byte @Nullable [] bytes, long dueNanos) {

	}

}
