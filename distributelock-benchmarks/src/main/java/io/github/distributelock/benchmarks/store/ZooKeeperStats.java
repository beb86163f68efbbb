package io.github.distributelock.benchmarks.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's own counters, read with the {@code mntr} four-letter word (enabled for
 * this run's server only): requests received and log fsyncs.
 */
public final class ZooKeeperStats {

	private ZooKeeperStats() {
	}

	public static Map<String, Long> read(String connectString) throws IOException {
		String[] hostPort = connectString.split(":");
		String reply;
		try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
			OutputStream out = socket.getOutputStream();
			out.write("mntr".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			reply = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		Map<String, Long> values = new HashMap<>();
		for (String line : reply.split("\n")) {
			String[] parts = line.trim().split("\t");
			if (parts.length == 2) {
				try {
					values.put(parts[0], (long) Double.parseDouble(parts[1]));
				}
				catch (NumberFormatException ex) {
					// Text values such as the version.
				}
			}
		}
		if (!values.containsKey("zk_packets_received")) {
			throw new IllegalStateException("mntr gave no zk_packets_received: " + reply);
		}
		return values;
	}

}
