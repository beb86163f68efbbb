package io.github.distributelock;

import java.util.List;
import java.util.regex.Pattern;

import org.springframework.boot.test.system.CapturedOutput;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log lines a test captured with Spring Boot's {@code OutputCaptureExtension}, to
 * count what the code logged and to see that it logged no stack trace with it.
 */
public final class LogLines {

	private static final Pattern STACK_TRACE_START = Pattern
		.compile("^(\\s+at |\\s*Caused by: |[\\w.$]+(Exception|Error)(: |$))");

	private LogLines() {
	}

	/** The captured lines that contain {@code text}. */
	public static List<String> containing(CapturedOutput output, String text) {
		return output.getAll().lines().filter((line) -> line.contains(text)).toList();
	}

	/** Asserts that no line containing {@code text} is followed by a stack trace. */
	public static void assertNoStackTraceAfter(CapturedOutput output, String text) {
		List<String> lines = output.getAll().lines().toList();
		for (int i = 0; i < lines.size() - 1; i++) {
			if (lines.get(i).contains(text)) {
				assertThat(lines.get(i + 1)).as("the line after %s", lines.get(i))
					.doesNotContainPattern(STACK_TRACE_START);
			}
		}
	}

	/** Whether a stack trace follows a line containing {@code text}. */
	public static boolean hasStackTraceAfter(CapturedOutput output, String text) {
		List<String> lines = output.getAll().lines().toList();
		for (int i = 0; i < lines.size() - 1; i++) {
			if (lines.get(i).contains(text) && STACK_TRACE_START.matcher(lines.get(i + 1)).find()) {
				return true;
			}
		}
		return false;
	}

}
