package io.github.distributelock.benchmarks.report;

import java.util.List;

/**
 * The text of a Markdown page, line by line, with the number formats of its tables.
 */
final class Markdown {

	private final StringBuilder text = new StringBuilder();

	void line(String line) {
		this.text.append(line).append('\n');
	}

	void line() {
		this.text.append('\n');
	}

	void table(List<String> header, List<String[]> rows) {
		line("| " + String.join(" | ", header) + " |");
		line("|" + "---|".repeat(header.size()));
		for (String[] row : rows) {
			line("| " + String.join(" | ", row) + " |");
		}
		line();
	}

	@Override
	public String toString() {
		return this.text.toString();
	}

	/**
	 * A figure with the decimals that matter: none from 100 up, one from 1, two below.
	 */
	static String micros(double value) {
		if (Double.isNaN(value)) {
			return "";
		}
		return (value >= 100) ? String.format("%,.0f", value)
				: (value >= 1) ? String.format("%.1f", value) : String.format("%.2f", value);
	}

	static String millis(double micros) {
		return Double.isNaN(micros) ? "" : String.format("%.2f", micros / 1000);
	}

	static String perSecond(double value) {
		return Double.isNaN(value) ? "" : String.format("%,.0f", value);
	}

	static String number(double value) {
		return Double.isNaN(value) ? "" : String.format("%.2f", value);
	}

	static String ratio(double value, double base) {
		return (Double.isNaN(value) || Double.isNaN(base) || base == 0) ? "" : String.format("%.2fx", value / base);
	}

	static String code(String text) {
		return "`" + text + "`";
	}

}
