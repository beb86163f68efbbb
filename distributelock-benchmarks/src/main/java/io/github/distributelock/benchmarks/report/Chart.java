package io.github.distributelock.benchmarks.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * A PNG of horizontal bars on logarithmic axes, drawn with Java2D so that making the page
 * needs nothing beyond the JDK: one panel per measurement, one row per library, one or
 * two bars per row.
 */
final class Chart {

	static final Color FLOOR = new Color(0x9E9E9E);

	static final Color OURS = new Color(0x1F77B4);

	static final Color PEER = new Color(0xFF7F0E);

	private static final int WIDTH = 1100;

	private static final int LABEL_WIDTH = 230;

	private static final int ROW = 26;

	private static final int PANEL_TOP = 56;

	private static final int PANEL_BOTTOM = 40;

	private Chart() {
	}

	/**
	 * A row of a panel.
	 *
	 * @param label the library
	 * @param values the bars, top to bottom; {@code NaN} draws none
	 * @param color the bar color
	 */
	record Row(String label, double[] values, Color color) {
	}

	/**
	 * A panel.
	 *
	 * @param title the title
	 * @param unit the unit of the axis
	 * @param seriesNames the name of each bar of a row
	 * @param rows the rows
	 */
	record Panel(String title, String unit, List<String> seriesNames, List<Row> rows) {

		int height() {
			return PANEL_TOP + this.rows.size() * ROW + PANEL_BOTTOM;
		}

	}

	static void write(Path file, List<Panel> panels) throws IOException {
		int height = panels.stream().mapToInt(Panel::height).sum() + 20;
		BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
		g.setColor(Color.WHITE);
		g.fillRect(0, 0, WIDTH, height);
		int top = 10;
		for (Panel panel : panels) {
			draw(g, panel, top);
			top += panel.height();
		}
		g.dispose();
		ImageIO.write(image, "png", file.toFile());
	}

	private static void draw(Graphics2D g, Panel panel, int top) {
		double min = Double.MAX_VALUE;
		double max = 0;
		for (Row row : panel.rows()) {
			for (double value : row.values()) {
				if (value > 0) {
					min = Math.min(min, value);
					max = Math.max(max, value);
				}
			}
		}
		if (max == 0) {
			return;
		}
		double low = Math.floor(Math.log10(min));
		double high = Math.ceil(Math.log10(max));
		if (high <= low) {
			high = low + 1;
		}
		int left = LABEL_WIDTH;
		int right = WIDTH - 30;
		g.setColor(Color.BLACK);
		g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
		g.drawString(panel.title(), 10, top + 20);
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
		g.drawString(legend(panel.seriesNames()), 10, top + 38);
		int axisTop = top + PANEL_TOP - 8;
		int axisBottom = top + PANEL_TOP + panel.rows().size() * ROW;
		for (double decade = low; decade <= high; decade++) {
			for (int step = 1; step < 10; step++) {
				double value = Math.pow(10, decade) * step;
				if (Math.log10(value) > high) {
					break;
				}
				int x = x(value, low, high, left, right);
				g.setColor((step == 1) ? new Color(0xBDBDBD) : new Color(0xEEEEEE));
				g.drawLine(x, axisTop, x, axisBottom);
				if ((step == 1 || step == 2 || step == 5) && x < right - 20) {
					g.setColor(Color.DARK_GRAY);
					g.drawString(number(value), x - 10, axisBottom + 14);
				}
			}
		}
		g.setColor(Color.DARK_GRAY);
		g.drawString(panel.unit() + " (log scale)", right - 120, axisBottom + 30);
		int y = top + PANEL_TOP;
		for (Row row : panel.rows()) {
			g.setColor(Color.BLACK);
			g.drawString(row.label(), 10, y + ROW / 2 + 4);
			int bars = row.values().length;
			int barHeight = (ROW - 6) / bars;
			for (int i = 0; i < bars; i++) {
				double value = row.values()[i];
				if (!(value > 0)) {
					continue;
				}
				int x = x(value, low, high, left, right);
				Color color = (i == 0) ? row.color() : row.color().darker();
				g.setColor(color);
				g.fillRect(left, y + 3 + i * barHeight, Math.max(1, x - left), barHeight - 1);
				g.setColor(Color.BLACK);
				g.drawString(number(value), Math.min(x + 4, right - 40), y + 3 + i * barHeight + barHeight - 2);
			}
			y += ROW;
		}
		g.setColor(Color.GRAY);
		g.setStroke(new BasicStroke(1));
		g.drawLine(left, axisTop, left, axisBottom);
	}

	private static String legend(List<String> series) {
		StringBuilder legend = new StringBuilder("grey: raw-client floor, blue: distributelock, orange: peers");
		if (series.size() > 1) {
			legend.append(";  bars top to bottom: ").append(String.join(", ", series));
		}
		return legend.toString();
	}

	private static int x(double value, double low, double high, int left, int right) {
		double position = (Math.log10(value) - low) / (high - low);
		return left + (int) Math.round(position * (right - left));
	}

	private static String number(double value) {
		if (value >= 1000) {
			return String.format("%,.0f", value);
		}
		if (value >= 10) {
			return String.format("%.0f", value);
		}
		return String.format("%.1f", value);
	}

}
