package io.github.distributelock.redis;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The functions that the scripts of the lock kinds share ({@code prelude.lua}), cut into
 * its paragraphs, so that each script is loaded with only those it uses. Redis runs the
 * whole text of a script at every call, and each function defined costs a closure: the
 * full prelude cost about 0.8 µs of Redis time per call, as much as a command, in scripts
 * that use a few of its functions or none.
 * <p>
 * A paragraph is a run of lines between blank lines; the names it defines are those of
 * its {@code local} statements at the start of a line. A paragraph is kept when the code
 * of a script, or of a paragraph kept, mentions one of its names (comments aside, as they
 * name functions in prose); the kept ones stay in their order, so each is defined before
 * its users.
 */
final class RedisPrelude {

	private static final Pattern DEFINITION = Pattern.compile("(?m)^local (?:function )?([A-Za-z_][A-Za-z0-9_]*)");

	private static final Pattern COMMENT = Pattern.compile("--[^\\n]*");

	private final List<Paragraph> paragraphs;

	private RedisPrelude(List<Paragraph> paragraphs) {
		this.paragraphs = paragraphs;
	}

	static RedisPrelude of(String text) {
		List<Paragraph> paragraphs = new ArrayList<>();
		for (String paragraph : text.split("\\n\\s*\\n")) {
			Set<String> names = new LinkedHashSet<>();
			Matcher definition = DEFINITION.matcher(paragraph);
			while (definition.find()) {
				names.add(definition.group(1));
			}
			if (!names.isEmpty()) {
				paragraphs.add(new Paragraph(paragraph, names));
			}
		}
		return new RedisPrelude(paragraphs);
	}

	/**
	 * The paragraphs that {@code script} needs, directly or through each other.
	 * @param script the text of a script of the lock kinds
	 * @return those paragraphs, in the prelude's order, separated by blank lines
	 */
	String neededBy(String script) {
		boolean[] kept = new boolean[this.paragraphs.size()];
		List<String> users = new ArrayList<>(List.of(code(script)));
		for (int used = 0; used < users.size(); used++) {
			String user = users.get(used);
			for (int i = 0; i < kept.length; i++) {
				if (!kept[i] && this.paragraphs.get(i).usedBy(user)) {
					kept[i] = true;
					users.add(code(this.paragraphs.get(i).text));
				}
			}
		}
		StringBuilder needed = new StringBuilder();
		for (int i = 0; i < kept.length; i++) {
			if (kept[i]) {
				needed.append(this.paragraphs.get(i).text).append("\n\n");
			}
		}
		return needed.toString();
	}

	/** The text without its comments, which may name a function without using it. */
	private static String code(String text) {
		return COMMENT.matcher(text).replaceAll("");
	}

	private record Paragraph(String text, Set<String> names) {

		boolean usedBy(String user) {
			for (String name : this.names) {
				if (Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(user).find()) {
					return true;
				}
			}
			return false;
		}

	}

}
