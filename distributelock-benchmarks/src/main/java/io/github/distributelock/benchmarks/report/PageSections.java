package io.github.distributelock.benchmarks.report;

/**
 * Replaces one {@code ## } section of a Markdown page, from its heading to the next
 * {@code ## } heading, or puts it before the page's analysis (or at its end) when the
 * page has none yet.
 */
final class PageSections {

	private static final String ANALYSIS = "## Analysis";

	private PageSections() {
	}

	/**
	 * The page with a section replaced or added.
	 * @param page the page
	 * @param heading the section's heading line, e.g. {@code ## Lock kinds}
	 * @param section the section's text, starting with its heading
	 * @return the new page
	 */
	static String replace(String page, String heading, String section) {
		int start = headingAt(page, heading);
		if (start >= 0) {
			int end = page.indexOf("\n## ", start + heading.length());
			return page.substring(0, start) + section + ((end < 0) ? "" : page.substring(end + 1));
		}
		int analysis = headingAt(page, ANALYSIS);
		if (analysis >= 0) {
			return page.substring(0, analysis) + section + page.substring(analysis);
		}
		return page + (page.endsWith("\n\n") ? "" : page.endsWith("\n") ? "\n" : "\n\n") + section;
	}

	private static int headingAt(String page, String heading) {
		if (page.startsWith(heading + "\n")) {
			return 0;
		}
		int at = page.indexOf("\n" + heading + "\n");
		return (at < 0) ? -1 : at + 1;
	}

}
