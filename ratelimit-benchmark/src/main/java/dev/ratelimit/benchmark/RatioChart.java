package dev.ratelimit.benchmark;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.Map;

import javax.imageio.ImageIO;

import dev.ratelimit.benchmark.http.HttpBenchmark;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The ratios of one run as a PNG (JFreeChart): the Java API's decisions per second relative to {@code PING} (Redis
 * scenarios only: the in-memory limiter, tens of times faster, would flatten the rest), and the HTTP requests per second relative
 * to the unlimited endpoint.
 */
final class RatioChart {

	private static final int WIDTH = 1300;

	private RatioChart() {
	}

	@SuppressWarnings("NullAway") // every run measures PING
	static void draw(Map<String, JavaApiBenchmark.Measurement> api, Map<String, HttpBenchmark.Measurement> http,
			Path file) throws IOException {
		System.setProperty("java.awt.headless", "true");
		DefaultCategoryDataset apiRatios = new DefaultCategoryDataset();
		double ping = api.get("PING").opsPerSecond();
		api.forEach((name, measurement) -> {
			if (!name.startsWith("in-memory")) {
				apiRatios.addValue(measurement.opsPerSecond() / ping, "x PING", name.replaceAll("\\s+", " "));
			}
		});
		DefaultCategoryDataset httpRatios = new DefaultCategoryDataset();
		double unlimited = http.values().iterator().next().requestsPerSecond();
		http.forEach((name, measurement) -> httpRatios.addValue(measurement.requestsPerSecond() / unlimited,
				"x unlimited", name));
		BufferedImage top = chart("Java API: decisions per second, relative to PING (one interleaved run)",
				"x PING", apiRatios).createBufferedImage(WIDTH, 28 * apiRatios.getColumnCount() + 120);
		BufferedImage bottom = chart("HTTP (wrk): requests per second, relative to the unlimited endpoint",
				"x unlimited", httpRatios).createBufferedImage(WIDTH, 28 * httpRatios.getColumnCount() + 120);
		BufferedImage image = new BufferedImage(WIDTH, top.getHeight() + bottom.getHeight(), BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		graphics.drawImage(top, 0, 0, null);
		graphics.drawImage(bottom, 0, top.getHeight(), null);
		graphics.dispose();
		if (file.getParent() != null) {
			Files.createDirectories(file.getParent());
		}
		ImageIO.write(image, "png", file.toFile());
	}

	private static JFreeChart chart(String title, String axis, DefaultCategoryDataset dataset) {
		JFreeChart chart = ChartFactory.createBarChart(title, null, axis, dataset, PlotOrientation.HORIZONTAL, false,
				false, false);
		chart.setBackgroundPaint(Color.WHITE);
		CategoryPlot plot = chart.getCategoryPlot();
		plot.setBackgroundPaint(new Color(245, 245, 245));
		// whole scenario names, and each bar's ratio at its end
		plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.5f);
		plot.getRenderer().setDefaultItemLabelGenerator(
				new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("0.00")));
		plot.getRenderer().setDefaultItemLabelsVisible(true);
		plot.addRangeMarker(new ValueMarker(1.0, Color.DARK_GRAY, new BasicStroke(1.5f)));
		return chart;
	}

}
