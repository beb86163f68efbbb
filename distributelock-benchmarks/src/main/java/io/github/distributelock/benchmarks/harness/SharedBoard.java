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
 * A few longs in a memory-mapped file that the JVMs of one contended run share: when to
 * start, who released last and when (for the hand-off latency), who holds the lock now
 * (to catch a broken mutual exclusion), which workers are ready and warm, and when the
 * measured window starts. It never touches the store, so it costs the measured libraries
 * nothing.
 */
final class SharedBoard {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private static final int START = 0;

	private static final int RELEASED_AT = 8;

	private static final int RELEASED_BY = 16;

	private static final int HOLDER = 24;

	private static final int READY = 32;

	private static final int MEASURE_FROM = 128;

	private static final int WARM = 256;

	private static final int SIZE = 4096;

	private final MappedByteBuffer buffer;

	private SharedBoard(MappedByteBuffer buffer) {
		this.buffer = buffer;
	}

	static SharedBoard open(Path file) throws IOException {
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			return new SharedBoard(channel.map(MapMode.READ_WRITE, 0, SIZE));
		}
	}

	long start() {
		return (long) LONGS.getVolatile(this.buffer, START);
	}

	void start(long nanos) {
		LONGS.setVolatile(this.buffer, START, nanos);
	}

	void ready(int worker) {
		LONGS.setVolatile(this.buffer, READY + 8 * worker, 1L);
	}

	boolean isReady(int worker) {
		return (long) LONGS.getVolatile(this.buffer, READY + 8 * worker) == 1L;
	}

	/**
	 * Marks a worker as warm.
	 * @param worker the worker
	 * @param warmupMillis how long its warm-up took, negative if its JIT compiler had not
	 * settled
	 */
	void warm(int worker, long warmupMillis) {
		LONGS.setVolatile(this.buffer, WARM + 8 * worker, warmupMillis);
	}

	/** How long a worker's warm-up took, 0 while it is still warming up. */
	long warmupMillis(int worker) {
		return (long) LONGS.getVolatile(this.buffer, WARM + 8 * worker);
	}

	/**
	 * When the measured window starts, on the system-wide monotonic clock; 0 until set.
	 */
	long measureFrom() {
		return (long) LONGS.getVolatile(this.buffer, MEASURE_FROM);
	}

	void measureFrom(long nanos) {
		LONGS.setVolatile(this.buffer, MEASURE_FROM, nanos);
	}

	/** Marks {@code holder} as the holder; false if another holder was still marked. */
	boolean enter(long holder) {
		return LONGS.compareAndSet(this.buffer, HOLDER, 0L, holder);
	}

	/**
	 * Unmarks the holder and records when, and by whom, the lock is about to be released.
	 */
	void leave(long holder) {
		LONGS.compareAndSet(this.buffer, HOLDER, holder, 0L);
		LONGS.setVolatile(this.buffer, RELEASED_BY, holder);
		LONGS.setVolatile(this.buffer, RELEASED_AT, System.nanoTime());
	}

	long releasedBy() {
		return (long) LONGS.getVolatile(this.buffer, RELEASED_BY);
	}

	long releasedAt() {
		return (long) LONGS.getVolatile(this.buffer, RELEASED_AT);
	}

}
