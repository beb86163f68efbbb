package io.github.distributelock.benchmarks.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads Redis {@code MONITOR} on a plain socket to tell the commands clients send from
 * the commands scripts run: Redis prints {@code [0 lua]} for the latter, the client's
 * address for the former. Used only while counting commands, never while timing.
 */
public final class RedisMonitor implements AutoCloseable {

	private final Socket socket;

	private final Thread reader;

	private final AtomicBoolean counting = new AtomicBoolean();

	private volatile String marker = "";

	private final Map<String, Long> client = new TreeMap<>();

	private final Map<String, Long> script = new TreeMap<>();

	public RedisMonitor(int port) throws IOException {
		this.socket = new Socket("127.0.0.1", port);
		OutputStream out = this.socket.getOutputStream();
		out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
		out.flush();
		BufferedReader in = new BufferedReader(
				new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
		String ok = in.readLine();
		if (!"+OK".equals(ok)) {
			throw new IllegalStateException("MONITOR answered " + ok);
		}
		this.reader = new Thread(() -> read(in), "redis-monitor");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	private void read(BufferedReader in) {
		try {
			String line;
			while ((line = in.readLine()) != null) {
				record(line);
			}
		}
		catch (IOException ex) {
			if (!this.socket.isClosed()) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	private synchronized void record(String line) {
		if (!this.counting.get()) {
			return;
		}
		if (!this.marker.isEmpty() && line.contains(this.marker)) {
			this.counting.set(false);
			notifyAll();
			return;
		}
		// +1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..." ...
		int open = line.indexOf('[');
		int close = line.indexOf(']', open);
		int quote = line.indexOf('"', close);
		if (open < 0 || close < 0 || quote < 0) {
			return;
		}
		int endQuote = line.indexOf('"', quote + 1);
		String command = line.substring(quote + 1, endQuote).toLowerCase();
		boolean fromScript = line.substring(open, close).contains("lua");
		(fromScript ? this.script : this.client).merge(command, 1L, Long::sum);
	}

	public synchronized void start() {
		this.client.clear();
		this.script.clear();
		this.counting.set(true);
	}

	/**
	 * Stops counting once the monitor has caught up with {@code marker}, the argument of
	 * a command that {@code sendMarker} sends after the counted ones.
	 */
	public synchronized Counts stop(String marker, Runnable sendMarker) throws InterruptedException {
		this.marker = marker;
		sendMarker.run();
		long giveUp = System.nanoTime() + 10_000_000_000L;
		while (this.counting.get() && System.nanoTime() - giveUp < 0) {
			wait(100);
		}
		this.counting.set(false);
		this.marker = "";
		return new Counts(new TreeMap<>(this.client), new TreeMap<>(this.script));
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	/**
	 * Commands seen, by name.
	 *
	 * @param client sent by clients
	 * @param script run inside scripts
	 */
	public record Counts(Map<String, Long> client, Map<String, Long> script) {

	}

}
