package io.github.distributelock.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A resource shared by several processes that checks fencing tokens: a write is accepted
 * only with a token at least as high as the highest one it has accepted, so a holder that
 * was paused past its lease cannot overwrite the work of the holder after it. The file
 * holds {@code <highest token> <last value>}; an OS file lock makes each check-and-write
 * atomic across processes.
 */
final class FileFencedResource {

	private final Path file;

	FileFencedResource(Path file) {
		this.file = file;
	}

	boolean write(long fencingToken, String value) {
		try (FileChannel channel = FileChannel.open(this.file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
			ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(channel.size(), 1));
			channel.read(buffer, 0);
			String current = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).trim();
			long highest = current.isEmpty() ? Long.MIN_VALUE : Long.parseLong(current.split(" ", 2)[0]);
			if (fencingToken < highest) {
				return false;
			}
			channel.truncate(0);
			channel.write(ByteBuffer.wrap((fencingToken + " " + value).getBytes(StandardCharsets.UTF_8)), 0);
			return true;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
