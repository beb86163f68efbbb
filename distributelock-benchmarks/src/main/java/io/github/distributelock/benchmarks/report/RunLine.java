package io.github.distributelock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * One sentence on the run that measured a section: when, with which arguments, how long,
 * and the machine's load average, for sections written by a row run into a page whose
 * machine table describes another run.
 */
final class RunLine {

	private RunLine() {
	}

	static String of(@Nullable JsonNode run) {
		if (run == null) {
			return "";
		}
		List<String> parts = new ArrayList<>();
		for (JsonNode part : run.path("parts")) {
			parts.add(part.path("part").asString() + " " + part.path("atStart").asString() + " → "
					+ part.path("atEnd").asString());
		}
		long seconds = run.path("seconds").asLong();
		JsonNode quiet = run.path("quietStart");
		return "These rows were measured on " + run.path("date").asString() + " (distributelock "
				+ run.path("versions").path("distributelock").asString() + ", " + run.path("mode").asString()
				+ " settings, arguments "
				+ Markdown.code(run.path("arguments").asString().isBlank() ? "none" : run.path("arguments").asString())
				+ ", measured in " + (seconds / 60) + " min " + (seconds % 60) + " s"
				+ ((quiet.path("waitedSeconds").asLong() > 0)
						? " after waiting " + quiet.path("waitedSeconds").asLong() + " s for a quiet machine" : "")
				+ ", " + cores(run) + "), on a machine shared with other engineers: load average (1, 5, 15 min) "
				+ quiet.path("loadFound").asString() + " when asked to start"
				+ (quiet.path("quiet").asBoolean() ? ""
						: " (not below " + quiet.path("below").asDouble() + " after waiting "
								+ quiet.path("waitedSeconds").asLong() + " s: a busy machine)")
				+ "; at the start → end of each part: " + String.join("; ", parts) + ".";
	}

	private static String cores(JsonNode run) {
		String cores = run.path("machine").path("cores").asString();
		return "1".equals(cores) ? "1 core" : cores + " cores";
	}

}
