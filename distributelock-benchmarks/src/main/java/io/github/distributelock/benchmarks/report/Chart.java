package io.github.distributelock.benchmarks.report;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.Arrays;
import java.util.List;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The page's chart, drawn with JFreeChart: one panel per measurement, one row per
 * library, one or two horizontal bars per row, colored by who the library is (floor,
 * ours, peer), all panels in one PNG.
 */
final class Chart {

	private static final int WIDTH = 1100;

	private static final int ROW_HEIGHT = 30;

	private static final int PANEL_FRAME = 130;

	private Chart() {
	}

	/** Who a row's library is, which gives its bars their color. */
	enum Kind {

		FLOOR("raw-client floor", new Color(0x9E9E9E)), OURS("distributelock", new Color(0x1F77B4)),
		PEER("peer library", new Color(0xFF7F0E));

		private final String label;

		private final Color color;

		Kind(String label, Color color) {
			this.label = label;
			this.color = color;
		}

	}

	/**
	 * A row of a panel.
	 *
	 * @param label the library
	 * @param values the bars, top to bottom; {@code NaN} draws none
	 * @param kind who the library is
	 */
	record Row(String label, double[] values, Kind kind) {

	}

	/**
	 * A panel.
	 *
	 * @param title the title
	 * @param unit the unit of the axis
	 * @param seriesNames the name of each bar of a row
	 * @param rows the rows
	 * @param logarithmic whether the axis is logarithmic, for values that span decades
	 */
	record Panel(String title, String unit, List<String> seriesNames, List<Row> rows, boolean logarithmic) {

		int height() {
			return PANEL_FRAME + this.rows.size() * ROW_HEIGHT;
		}

	}

	static void write(Path file, List<Panel> panels) throws IOException {
		int height = panels.stream().mapToInt(Panel::height).sum();
		BufferedImage image = new BufferedImage(WIDTH, Math.max(1, height), BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		graphics.setColor(Color.WHITE);
		graphics.fillRect(0, 0, WIDTH, height);
		int top = 0;
		for (Panel panel : panels) {
			chart(panel).draw(graphics, new Rectangle2D.Double(0, top, WIDTH, panel.height()));
			top += panel.height();
		}
		graphics.dispose();
		try (OutputStream out = Files.newOutputStream(file)) {
			ChartUtils.writeBufferedImageAsPNG(out, image);
		}
	}

	private static JFreeChart chart(Panel panel) {
		DefaultCategoryDataset data = new DefaultCategoryDataset();
		for (Row row : panel.rows()) {
			for (int i = 0; i < row.values().length; i++) {
				double value = row.values()[i];
				data.addValue((value > 0) ? value : null, panel.seriesNames().get(i), row.label());
			}
		}
		JFreeChart chart = ChartFactory.createBarChart(panel.title(), null, panel.unit(), data,
				PlotOrientation.HORIZONTAL, true, false, false);
		CategoryPlot plot = chart.getCategoryPlot();
		if (panel.logarithmic()) {
			LogAxis axis = logarithmic(panel);
			axis.setLabelFont(plot.getRangeAxis().getLabelFont());
			plot.setRangeAxis(axis);
		}
		plot.getRangeAxis().setUpperMargin(0.12);
		plot.setRangeAxisLocation(AxisLocation.BOTTOM_OR_LEFT);
		plot.setBackgroundPaint(Color.WHITE);
		plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
		plot.setRenderer(new KindRenderer(panel));
		plot.setFixedLegendItems(legend(panel));
		chart.getLegend().setPosition(RectangleEdge.TOP);
		return chart;
	}

	/** A logarithmic axis with a tick at each power of ten. */
	private static LogAxis logarithmic(Panel panel) {
		LogAxis axis = new LogAxis(panel.unit() + " (log scale)");
		axis.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
		double lowest = panel.rows()
			.stream()
			.flatMapToDouble((row) -> Arrays.stream(row.values()))
			.filter((value) -> value > 0)
			.min()
			.orElse(1);
		axis.setSmallestValue(lowest / 2);
		axis.setTickUnit(new NumberTickUnit(1));
		axis.setMinorTickCount(9);
		axis.setMinorTickMarksVisible(true);
		return axis;
	}

	private static LegendItemCollection legend(Panel panel) {
		LegendItemCollection items = new LegendItemCollection();
		for (Kind kind : Kind.values()) {
			items.add(new LegendItem(kind.label, kind.color));
		}
		items.add(new LegendItem("lighter bar: " + panel.seriesNames().get(0) + ", darker bar: "
				+ panel.seriesNames().get(panel.seriesNames().size() - 1), Color.DARK_GRAY));
		return items;
	}

	/**
	 * Bars in the color of their row's {@link Kind}, the second bar of a row darker, each
	 * with its value at its end.
	 */
	private static final class KindRenderer extends BarRenderer {

		private final transient Panel panel;

		KindRenderer(Panel panel) {
			this.panel = panel;
			setBarPainter(new StandardBarPainter());
			setShadowVisible(false);
			setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator() {

				@Override
				public String generateLabel(CategoryDataset dataset, int row, int column) {
					Number value = dataset.getValue(row, column);
					return (value != null) ? Markdown.micros(value.doubleValue()) : null;
				}

			});
			setDefaultItemLabelsVisible(true);
			setDefaultPositiveItemLabelPosition(
					new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3, TextAnchor.CENTER_LEFT));
		}

		@Override
		public Paint getItemPaint(int series, int column) {
			Color color = this.panel.rows().get(column).kind().color;
			return (series == 0) ? color : color.darker();
		}

	}

}
