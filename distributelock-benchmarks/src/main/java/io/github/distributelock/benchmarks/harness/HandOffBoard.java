package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The few longs the two JVMs of a hand-off run share through a memory-mapped file: which
 * cycle the holder holds, which cycle the waiter waits for, which cycle is done, when the
 * holder released and when its release returned (on the system-wide monotonic clock that
 * {@link System#nanoTime()} reads on Linux). It never touches the store.
 */
final class HandOffBoard {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private static final int HELD = 0;

	private static final int WAITING = 8;

	private static final int DONE = 16;

	private static final int RELEASED_AT = 24;

	private static final int RELEASE_RETURNED_AT = 32;

	private final MappedByteBuffer buffer;

	private HandOffBoard(MappedByteBuffer buffer) {
		this.buffer = buffer;
	}

	static HandOffBoard open(Path file) throws IOException {
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			return new HandOffBoard(channel.map(MapMode.READ_WRITE, 0, 64));
		}
	}

	void held(long cycle) {
		LONGS.setVolatile(this.buffer, HELD, cycle);
	}

	void waiting(long cycle) {
		LONGS.setVolatile(this.buffer, WAITING, cycle);
	}

	void done(long cycle) {
		LONGS.setVolatile(this.buffer, DONE, cycle);
	}

	void releasedAt(long nanos) {
		LONGS.setVolatile(this.buffer, RELEASED_AT, nanos);
	}

	long releasedAt() {
		return (long) LONGS.getVolatile(this.buffer, RELEASED_AT);
	}

	void releaseReturnedAt(long nanos) {
		LONGS.setVolatile(this.buffer, RELEASE_RETURNED_AT, nanos);
	}

	long releaseReturnedAt() {
		return (long) LONGS.getVolatile(this.buffer, RELEASE_RETURNED_AT);
	}

	/**
	 * Waits until the other JVM has marked {@code cycle} in a slot, polling every
	 * millisecond: nothing notifies across JVMs, and no measured interval spans it.
	 */
	void awaitHeld(long cycle) throws InterruptedException {
		await(HELD, cycle);
	}

	void awaitWaiting(long cycle) throws InterruptedException {
		await(WAITING, cycle);
	}

	void awaitDone(long cycle) throws InterruptedException {
		await(DONE, cycle);
	}

	private void await(int slot, long cycle) throws InterruptedException {
		long giveUp = System.nanoTime() + 60_000_000_000L;
		while ((long) LONGS.getVolatile(this.buffer, slot) < cycle) {
			if (System.nanoTime() - giveUp > 0) {
				throw new IllegalStateException("The other JVM of the hand-off run did not reach cycle " + cycle);
			}
			Thread.sleep(1);
		}
	}

}
