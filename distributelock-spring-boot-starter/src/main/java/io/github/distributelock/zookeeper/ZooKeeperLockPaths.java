package io.github.distributelock.zookeeper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.zookeeper.common.PathUtils;

/**
 * The path of each lock's node: the lock key escaped into one legal path segment under
 * the root, so that no key can name a node elsewhere in the tree.
 * <p>
 * The escape is percent-encoding of the UTF-8 bytes of {@code %}, {@code /} and of every
 * character ZooKeeper refuses in a path (control characters, surrogates, the private use
 * area and {@code U+FFF0} to {@code U+FFFF}); a key of {@code .} or {@code ..} has its
 * dots encoded, and so does a key of {@code zookeeper} under the root {@code /}. Every
 * other character, including spaces and most of Unicode, is kept as it is, so a key of
 * the original {@code cn.dslcode} starter without these characters names the same node.
 * Because {@code %} itself is encoded, the escape is reversible and two keys never share
 * a node.
 */
final class ZooKeeperLockPaths {

	/**
	 * The longest escaped node name, in UTF-8 bytes. ZooKeeper has no path limit of its
	 * own, but a request larger than {@code jute.maxbuffer} (1 MB by default) makes the
	 * server drop the connection, and every held lock's name is listed together when the
	 * root's children are read; 8 KB leaves room for both while fitting a 1,000 character
	 * key of any script.
	 */
	static final int MAX_NODE_NAME_BYTES = 8 * 1024;

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private final String root;

	private final String prefix;

	ZooKeeperLockPaths(String root) {
		try {
			PathUtils.validatePath(root);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"The ZooKeeper lock root '" + root + "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
		}
		this.root = root;
		this.prefix = root.equals("/") ? "/" : root + "/";
	}

	String root() {
		return this.root;
	}

	/** The path of the node of {@code key}, directly under the root. */
	String lockPath(String key) {
		String path = this.prefix + nodeName(key);
		PathUtils.validatePath(path);
		return path;
	}

	/** The single path segment that stands for {@code key}. */
	String nodeName(String key) {
		StringBuilder name = new StringBuilder(key.length() + 16);
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
				appendEncoded(name, key.substring(i, i + 2));
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new IllegalArgumentException("The lock key '" + key + "' has an unpaired surrogate character at "
						+ "index " + i + ", which has no UTF-8 form; ZooKeeper cannot store it");
			}
			else if (mustEncode(c)) {
				appendEncoded(name, String.valueOf(c));
			}
			else {
				name.append(c);
			}
		}
		String escaped = escapeReservedName(name.toString());
		int bytes = escaped.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > MAX_NODE_NAME_BYTES) {
			throw new IllegalArgumentException(
					"The lock key starting '" + key.substring(0, Math.min(key.length(), 40)) + "...' is " + key.length()
							+ " characters, " + bytes + " bytes once escaped for ZooKeeper; at most "
							+ MAX_NODE_NAME_BYTES + " bytes are allowed: use a shorter key, such as a hash of it");
		}
		return escaped;
	}

	/** The key that {@link #nodeName(String)} turned into {@code nodeName}. */
	static String keyOf(String nodeName) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(nodeName.length());
		for (int i = 0; i < nodeName.length(); i++) {
			char c = nodeName.charAt(i);
			if (c == '%' && i + 2 < nodeName.length()) {
				bytes.write(Integer.parseInt(nodeName.substring(i + 1, i + 3), 16));
				i += 2;
			}
			else {
				byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
				bytes.write(encoded, 0, encoded.length);
			}
		}
		return bytes.toString(StandardCharsets.UTF_8);
	}

	private String escapeReservedName(String name) {
		if (name.equals(".") || name.equals("..")) {
			return name.replace(".", "%2E");
		}
		if (name.isEmpty()) {
			throw new IllegalArgumentException("The lock key must not be empty");
		}
		if (this.root.equals("/") && name.equals("zookeeper")) {
			// The root holds ZooKeeper's own /zookeeper node.
			return "%7Aookeeper";
		}
		return name;
	}

	private static boolean mustEncode(char c) {
		return c == '%' || c == '/' || c <= '\u001f' || (c >= '\u007f' && c <= '\u009f')
				|| (c >= '\ud800' && c <= '\uf8ff') || c >= '\ufff0';
	}

	private static void appendEncoded(StringBuilder name, String character) {
		for (byte b : character.getBytes(StandardCharsets.UTF_8)) {
			name.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
		}
	}

}
