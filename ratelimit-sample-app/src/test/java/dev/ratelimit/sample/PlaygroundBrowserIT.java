package dev.ratelimit.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The playground page in a real browser: Debian's headless Chromium driven by its chromedriver (both from Debian's
 * packages, which {@code ./verify} installs; no test tool downloads a browser), against the packaged application on
 * a real Redis. It runs the boundary burst and the steady overload, reads the totals the page shows, checks that each
 * algorithm's chart was drawn, shows a bad input's message, and keeps screenshots under {@code target/}.
 */
class PlaygroundBrowserIT {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	private static TestRedis redis;

	private static SampleProcess app;

	private static ChromeDriver browser;

	private static Path userData;

	@BeforeAll
	static void start() throws Exception {
		assertThat(CHROMIUM).as("Debian's chromium (./verify installs it: apt-get install chromium)").isExecutable();
		assertThat(CHROMEDRIVER).as("Debian's chromedriver (apt-get install chromium-driver)").isExecutable();
		redis = TestRedis.start();
		app = SampleProcess.web("playground-browser", redis.url());
		userData = Files.createTempDirectory("playground-chromium");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		// without the networking flags Chromium tries to reach hosts this machine cannot
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--window-size=1200,1400", "--user-data-dir=" + userData);
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(new File(CHROMEDRIVER.toString()))
			.usingAnyFreePort()
			.build();
		app.awaitReady();
		browser = new ChromeDriver(service, options);
	}

	@AfterAll
	static void stop() throws Exception {
		if (browser != null) {
			browser.quit();
		}
		if (app != null) {
			app.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void theBoundaryBurstAndTheSteadyOverloadAreDrawnWithTheSpecsNumbers() throws Exception {
		browser.get(app.uri("/playground").toString());
		awaitState("drawn");
		// docs/ALGORITHMS.md, "Reference results": the boundary burst's totals, drawn as the page opens
		assertThat(column("admitted-total")).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", "20", "sliding-log", "10", "sliding-window-counter", "11", "token-bucket", "10"));
		assertChartsDrawn(30);
		screenshot("playground-boundary-burst.png");

		new Select(browser.findElement(By.id("pattern"))).selectByValue("steady-overload");
		browser.findElement(By.id("run")).click();
		awaitText("steady-overload");
		assertThat(column("admitted-total")).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", "100", "sliding-log", "93", "sliding-window-counter", "99", "token-bucket", "108"));
		assertThat(column("most")).containsExactlyInAnyOrderEntriesOf(
				Map.of("fixed-window", "17", "sliding-log", "10", "sliding-window-counter", "12", "token-bucket", "19"));
		assertChartsDrawn(200);
		screenshot("playground-steady-overload.png");
	}

	@Test
	void aBadInputShowsItsMessage() {
		browser.get(app.uri("/playground").toString());
		awaitState("drawn");
		WebElement limit = browser.findElement(By.id("limit"));
		limit.clear();
		limit.sendKeys("0");
		browser.findElement(By.id("run")).click();
		awaitState("error");
		assertThat(browser.findElement(By.id("error")).getText()).contains("limit of rate limit");
	}

	/** Each algorithm's chart: its SVG with one mark per request and the admitted-in-window line. */
	private static void assertChartsDrawn(int requests) {
		List<WebElement> charts = browser.findElements(By.cssSelector("#charts svg"));
		assertThat(charts).hasSize(4);
		for (WebElement chart : charts) {
			assertThat(chart.findElements(By.cssSelector("rect.admitted, rect.denied"))).hasSize(requests);
			assertThat(chart.findElement(By.cssSelector("path.window-count")).getAttribute("d")).startsWith("M");
			assertThat(chart.getAttribute("aria-label")).contains("admitted");
		}
	}

	/** The totals table's cells of one class, by algorithm. */
	private static Map<String, String> column(String cell) {
		Map<String, String> values = new HashMap<>();
		for (WebElement row : browser.findElements(By.cssSelector("table.totals tr[data-algorithm]"))) {
			values.put(row.getAttribute("data-algorithm"), row.findElement(By.className(cell)).getText());
		}
		return values;
	}

	private static void awaitState(String state) {
		new WebDriverWait(browser, Duration.ofSeconds(60))
			.until((driver) -> state.equals(driver.findElement(By.tagName("body")).getAttribute("data-state")));
	}

	private static void awaitText(String text) {
		new WebDriverWait(browser, Duration.ofSeconds(60))
			.until((driver) -> driver.findElement(By.id("summary")).getText().contains(text));
	}

	private static void screenshot(String name) throws Exception {
		Path target = Path.of("target", name);
		Files.createDirectories(target.getParent());
		Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), target, StandardCopyOption.REPLACE_EXISTING);
	}

}
