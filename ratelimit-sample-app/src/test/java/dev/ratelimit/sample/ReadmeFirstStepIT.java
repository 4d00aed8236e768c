package dev.ratelimit.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The README's first step, as written there: the command of its row "run the sample application", taken from the
 * README itself. Its build half ({@code ./mvnw ... install}) is what this build has just done, so the test checks that
 * the jar the command then runs is the one this build made, and runs the {@code java -jar} half exactly as written,
 * from the repository's root, with no Redis configured: the sample answers on port 8080 with its embedded Redis and
 * limits a request; then the test ends it by its pid, and the embedded {@code redis-server} ends with it.
 */
class ReadmeFirstStepIT {

	private static final Pattern ROW = Pattern.compile("^\\| run the sample application[^|]*\\| `([^`]+)` \\|$",
			Pattern.MULTILINE);

	@Test
	void theReadmesCommandRunsTheSampleOnItsEmbeddedRedis() throws Exception {
		Path root = Path.of("..").toRealPath();
		Matcher row = ROW.matcher(Files.readString(root.resolve("README.md")));
		assertThat(row.find()).as("the README's row 'run the sample application'").isTrue();
		List<String> steps = List.of(row.group(1).split(" && "));
		assertThat(steps).as("build && run").hasSize(2);
		assertThat(steps.get(0)).as("the build").startsWith("./mvnw ").contains(" install");
		String run = steps.get(1);
		assertThat(run).as("the run").startsWith("java -jar ");
		assertThat(root.resolve(run.substring("java -jar ".length())).toRealPath())
			.as("the jar the README runs is the one the build makes")
			.isEqualTo(SampleProcess.jar().toRealPath());
		assertPortFree(8080);

		try (SampleProcess sample = SampleProcess.shell("readme-first-step", root, run, 8080)) {
			sample.awaitReady();
			assertThat(sample.handle().info().command()).as("the process ended by its pid is the application")
				.hasValueSatisfying((command) -> assertThat(command).endsWith("/java"));
			assertThat(sample.output()).contains("No Redis configured").contains("started an embedded redis-server");
			assertThat(Http.get(sample, "/", null).body()).startsWith("ratelimit sample");
			HttpResponse<String> ping = Http.get(sample, "/api/ping", "readme-key");
			assertThat(ping.statusCode()).isEqualTo(200);
			assertThat(Http.states(ping)).containsKey("api");
			List<ProcessHandle> redis = sample.runningDescendants();
			assertThat(redis).as("the embedded redis-server")
				.anySatisfy((process) -> assertThat(process.info().command()).hasValueSatisfying(
						(command) -> assertThat(command).contains("redis-server")));

			assertThat(sample.handle().destroy()).as("SIGTERM to its pid").isTrue();
			sample.handle().onExit().get(60, TimeUnit.SECONDS);
			for (ProcessHandle process : redis) {
				process.onExit().get(30, TimeUnit.SECONDS);
			}
			assertThat(redis).as("the embedded redis-server stopped with the application").noneMatch(ProcessHandle::isAlive);
		}
	}

	private static void assertPortFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("0.0.0.0"))) {
			socket.getLocalPort();
		}
		catch (IOException ex) {
			fail("Port " + port + " is in use, and the README's command starts the sample there: " + ex.getMessage());
		}
	}

}
