package io.github.distributelock.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records Java Flight Recorder's {@code jdk.VirtualThreadPinned} event, whatever its
 * duration, while a test class runs, and fails the class if a virtual thread blocked
 * while pinned to its carrier, showing where.
 * <p>
 * Since JDK 24 (JEP 491) a virtual thread blocking inside {@code synchronized} is no
 * longer pinned, so on the JDK 25 that runs these tests this catches what still pins:
 * blocking under a native frame or in a class initializer. {@code NoMonitorsTests} keeps
 * {@code synchronized} out of the starter for Java 21 to 23.
 */
final class NoPinnedVirtualThreadsExtension implements BeforeAllCallback, AfterAllCallback {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(NoPinnedVirtualThreadsExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		Recording recording = new Recording();
		recording.setName("virtual-thread-pinning");
		recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
		recording.start();
		context.getStore(NAMESPACE).put(Recording.class, recording);
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		Recording recording = context.getStore(NAMESPACE).remove(Recording.class, Recording.class);
		if (recording == null) {
			return;
		}
		Path file = Files.createTempFile("virtual-thread-pinning", ".jfr");
		try {
			recording.stop();
			recording.dump(file);
			List<RecordedEvent> pinned = RecordingFile.readAllEvents(file)
				.stream()
				.filter((event) -> event.getEventType().getName().equals(PINNED))
				.filter(NoPinnedVirtualThreadsExtension::runsCodeOutsideTheJdk)
				.filter((event) -> !NoPinnedVirtualThreadsExtension.blocksOnTheThreadsOwnInterruptLock(event))
				.toList();
			assertThat(pinned).as("virtual threads pinned while %s ran:%n%s", context.getDisplayName(),
					pinned.stream().map(NoPinnedVirtualThreadsExtension::describe).collect(Collectors.joining("\n")))
				.isEmpty();
		}
		finally {
			recording.close();
			Files.deleteIfExists(file);
		}
	}

	/**
	 * Whether the pinned thread ran code of ours or of a library: the JDK's own virtual
	 * threads pin briefly, now and then, inside the JDK (a NIO poller starting waits for
	 * the initialization of its class), which no code of ours can cause or avoid.
	 */
	private static boolean runsCodeOutsideTheJdk(RecordedEvent event) {
		RecordedStackTrace stackTrace = event.getStackTrace();
		if (stackTrace == null) {
			return true;
		}
		return stackTrace.getFrames()
			.stream()
			.map((frame) -> frame.getMethod().getType().getName())
			.anyMatch((type) -> !type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun."));
	}

	/**
	 * Whether the thread was pinned waiting for its own interrupt lock: on JDK 25
	 * {@code Thread.interrupted()} of a virtual thread takes a monitor of the thread
	 * object, which another thread's {@code interrupt()} may hold for a microsecond, and
	 * that frame cannot be unmounted. Every wait that honours interrupts (ours, and
	 * {@code CompletableFuture.get} alike) must read the flag, so this is the JDK's to
	 * remove, not ours.
	 */
	private static boolean blocksOnTheThreadsOwnInterruptLock(RecordedEvent event) {
		RecordedStackTrace stackTrace = event.getStackTrace();
		if (stackTrace == null || stackTrace.getFrames().isEmpty()) {
			return false;
		}
		RecordedFrame top = stackTrace.getFrames().get(0);
		return top.getMethod().getType().getName().equals("java.lang.VirtualThread")
				&& top.getMethod().getName().equals("getAndClearInterrupt");
	}

	private static String describe(RecordedEvent event) {
		StringBuilder description = new StringBuilder("pinned for ").append(event.getDuration().toNanos() / 1000)
			.append(" us");
		RecordedStackTrace stackTrace = event.getStackTrace();
		if (stackTrace != null) {
			for (RecordedFrame frame : stackTrace.getFrames()) {
				description.append("\n\tat ")
					.append(frame.getMethod().getType().getName())
					.append('.')
					.append(frame.getMethod().getName())
					.append(':')
					.append(frame.getLineNumber());
			}
		}
		return description.toString();
	}

}
