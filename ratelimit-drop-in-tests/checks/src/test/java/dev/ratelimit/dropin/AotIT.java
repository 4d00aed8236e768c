package dev.ratelimit.dropin;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Applications with the starter, processed ahead of time ({@code spring-boot:process-aot}, the first step of every
 * GraalVM native image, and a way to start faster on the JVM) and run on the JVM with
 * {@code -Dspring.aot.enabled=true}, start and limit exactly, on {@code spring.data.redis.*} alone (no
 * {@code ratelimit.redis.*}): the Spring MVC application ({@code lettuce-host-aot}, {@code lettuce-host-with-starter}
 * processed) with a filter rule of 2 per minute given at run time, and the WebFlux one ({@code webflux-host-aot})
 * with its {@code @RateLimited(limit = 2, window = "1m")}, no property at all. Requests 1 and 2 get 200, request 3 a
 * 429 with {@code Retry-After}, counted in the application's Redis.
 *
 * <p>
 * In AOT mode the conditions were decided when the application was processed: a condition property of the starter
 * given another value at run time ({@code ratelimit.filter.enabled=false}, {@code ratelimit.store=in-memory}) stops
 * startup naming the property, rather than being ignored.
 *
 * <p>
 * Each host runs as {@code java -Dspring.aot.enabled=true -cp <its target/classes, where process-aot put the
 * generated code>:<its class path>}, as {@link DropInIT}'s hosts run, against a Redis of its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AotIT {

	/** What Spring Boot logs when it starts from the generated initializer rather than from the annotations. */
	static final String AOT_STARTED = "Starting AOT-processed ";

	/** The processed hosts. */
	enum Host {

		/** Spring MVC on Lettuce: limited by a filter rule, a run-time property. */
		MVC("lettuce-host-aot", "dev.ratelimit.dropin.host.HostApplication", "HostApplication",
				List.of("--ratelimit.filter.rules[0].paths[0]=/limited", "--ratelimit.filter.rules[0].limit=2",
						"--ratelimit.filter.rules[0].window=1m"),
				"\"/limited\";q=2;w=60", List.of("--ratelimit.filter.enabled=false"), "ratelimit.filter.enabled"),

		/** WebFlux on reactive Lettuce: limited by its annotation, no property. */
		WEBFLUX("webflux-host-aot", WebFluxDropInIT.MAIN_CLASS, "WebFluxHostApplication", List.of(),
				WebFluxDropInIT.ANNOTATION_POLICY, List.of("--ratelimit.store=in-memory"), "ratelimit.store");

		final String module;

		final String mainClass;

		final String simpleName;

		/** The limit's arguments: only {@code ratelimit.*} properties that are not conditions. */
		final List<String> limit;

		/** The {@code RateLimit-Policy} of the limit. */
		final String policy;

		/** A condition property of the starter with another value than when processed. */
		final List<String> changedCondition;

		final String changedProperty;

		Host(String module, String mainClass, String simpleName, List<String> limit, String policy,
				List<String> changedCondition, String changedProperty) {
			this.module = module;
			this.mainClass = mainClass;
			this.simpleName = simpleName;
			this.limit = limit;
			this.policy = policy;
			this.changedCondition = changedCondition;
			this.changedProperty = changedProperty;
		}

		/** Where process-aot compiled the generated code (and copied the hints), first on the class path. */
		Path classes() {
			return HostClassPath.hostsDirectory().resolve(this.module).resolve("target").resolve("classes");
		}

		String classPath() {
			return classes() + File.pathSeparator + HostClassPath.of(this.module).classPath();
		}

		String runName() {
			return this.module;
		}

		String changedRunName() {
			return this.module + "-changed-condition";
		}

	}

	private static final List<String> AOT = List.of("-Dspring.aot.enabled=true");

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private static final Map<Host, TestRedis> redis = new EnumMap<>(Host.class);

	private static final Map<String, HostProcess> processes = new LinkedHashMap<>();

	private static final Map<String, Future<HostReport>> reports = new LinkedHashMap<>();

	private static final Map<String, Future<HostProcess>> stopped = new LinkedHashMap<>();

	private static ExecutorService starting;

	@BeforeAll
	static void startTheHosts() {
		// Two start-ups at a time on a 2-core machine; the runs that must stop are short.
		starting = Executors.newFixedThreadPool(2);
		for (Host host : Host.values()) {
			TestRedis server = TestRedis.start();
			redis.put(host, server);
			List<String> args = new ArrayList<>(DropInIT.common(server));
			args.addAll(host.limit);
			reports.put(host.runName(), starting.submit(() -> start(host.runName(), host, args).awaitReport()));
		}
		for (Host host : Host.values()) {
			List<String> args = new ArrayList<>(DropInIT.common(redis.get(host)));
			args.addAll(host.changedCondition);
			stopped.put(host.changedRunName(), starting.submit(() -> {
				HostProcess process = start(host.changedRunName(), host, args);
				process.awaitExit(HostProcess.START_UP);
				return process;
			}));
		}
	}

	private static HostProcess start(String name, Host host, List<String> args) {
		HostProcess process = HostProcess.start(name, host.classPath(), host.mainClass, AOT, args);
		synchronized (processes) {
			processes.put(name, process);
		}
		return process;
	}

	@AfterAll
	static void stopTheHosts() {
		if (starting != null) {
			starting.shutdownNow();
			try {
				starting.awaitTermination(HostProcess.START_UP.toSeconds(), TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		synchronized (processes) {
			processes.values().forEach(HostProcess::stop);
		}
		redis.values().forEach(TestRedis::close);
	}

	// ---------------------------------------------------------------------------------------------------------
	// What process-aot generated

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(1)
	void theHostsWereProcessedAheadOfTimeWithTheStartersHints(Host host) throws IOException {
		Path classes = host.classes();
		String mainPath = host.mainClass.replace('.', '/');
		assertThat(classes.resolve(mainPath + "__ApplicationContextInitializer.class"))
			.as("%s: the generated initializer", host.module)
			.isRegularFile();
		assertThat(classes.resolve("dev/ratelimit/spring/autoconfigure/RateLimitAutoConfiguration__BeanDefinitions.class"))
			.as("%s: the starter's bean definitions as generated code", host.module)
			.isRegularFile();
		Path metadata = classes.resolve("META-INF/native-image/dev.ratelimit/ratelimit-drop-in-" + host.module
				+ "/reachability-metadata.json");
		assertThat(metadata).as("%s: the hints for a native image", host.module).isRegularFile();
		// JSON may escape the slashes
		assertThat(Files.readString(metadata).replace("\\/", "/"))
			.as("%s: the limiter's Lua scripts are resources of the image", host.module)
			.contains("dev/ratelimit/core/scripts/");
	}

	// ---------------------------------------------------------------------------------------------------------
	// They run from the generated code, and limit exactly

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(10)
	void theHostsStartFromTheGeneratedCode(Host host) {
		report(host.runName());
		HostProcess process = process(host.runName());
		assertThat(process.fullOutput()).as("%s runs in AOT mode", host.module)
			.contains(AOT_STARTED + host.simpleName);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(11)
	void theLimitAppliesExactlyInTheApplicationsRedis(Host host) {
		HostReport report = report(host.runName());
		TestRedis server = redis.get(host);
		assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
		List<HttpResponse<String>> responses = threeGets(report);
		assertThat(responses).as("%s: GET /limited three times, 2 per minute", host.module)
			.extracting(HttpResponse::statusCode)
			.containsExactly(200, 200, 429);
		assertThat(responses.subList(0, 2)).as("%s: the handler answered", host.module)
			.extracting(HttpResponse::body)
			.containsOnly("limited");
		assertThat(responses.get(2).headers().firstValue("Retry-After")).as("%s: Retry-After of the 429", host.module)
			.hasValueSatisfying((value) -> assertThat(Long.parseLong(value)).isPositive());
		assertThat(responses).as("%s: RateLimit-Policy", host.module)
			.allSatisfy((response) -> assertThat(response.headers().allValues("RateLimit-Policy"))
				.containsExactly(host.policy));
		assertThat(server.command("DBSIZE")).as("%s: the limit's state is in the application's Redis"
				+ " (spring.data.redis.*)", host.module)
			.isEqualTo(":1");
	}

	@Test
	@Order(12)
	void theAnnotatedControllerIsProxiedFromTheClassGeneratedAheadOfTime() {
		HostReport report = report(Host.WEBFLUX.runName());
		assertThat(report.beans().get(WebFluxDropInIT.LIMITED_BEAN)).as("the WebFlux host's @RateLimited controller")
			.matches(WebFluxDropInIT.LIMITED_PROXY);
	}

	// ---------------------------------------------------------------------------------------------------------
	// A condition property changed after processing stops startup

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(20)
	void aConditionPropertyChangedSinceProcessingStopsStartupNamingIt(Host host) {
		HostProcess process = stoppedRun(host.changedRunName());
		Integer exitCode = process.awaitExit(Duration.ZERO);
		assertThat(exitCode).as("%s with %s: stops by itself, with a non-zero exit code\n%s", host.module,
				host.changedCondition, process.output())
			.isNotNull()
			.isNotZero();
		// Stopped by the generated initializer, before Spring Boot logs that it starts (AOT-processed or not): only
		// the code generated when processing checks the conditions, so the message is the proof of AOT mode.
		assertThat(process.fullOutput()).as("%s: names the property and says it was decided when processed",
				host.module)
			.contains("APPLICATION FAILED TO START")
			.contains(host.changedProperty)
			.contains("process-aot");
	}

	// ---------------------------------------------------------------------------------------------------------
	// And they stop

	@Test
	@Order(100)
	void everyApplicationStopsByItselfWhenAsked() {
		List<String> problems = new ArrayList<>();
		for (Host host : Host.values()) {
			try {
				report(host.runName());
			}
			catch (AssertionError ex) {
				problems.add(ex.getMessage());
				continue;
			}
			HostProcess process = process(host.runName());
			Integer exitCode = process.stop();
			if (exitCode == null || exitCode != 0) {
				problems.add(host.runName() + ((exitCode == null) ? ": did not stop within " + HostProcess.STOP
						+ ", destroyed" : ": exited with " + exitCode) + "\n" + process.output());
			}
		}
		if (!problems.isEmpty()) {
			fail("Closing their standard input should stop them with exit code 0:\n" + String.join("\n", problems));
		}
	}

	// ---------------------------------------------------------------------------------------------------------

	private static HostProcess process(String name) {
		synchronized (processes) {
			return processes.get(name);
		}
	}

	private static HostReport report(String name) {
		return await(name, reports.get(name));
	}

	private static HostProcess stoppedRun(String name) {
		return await(name, stopped.get(name));
	}

	private static <T> T await(String name, Future<T> future) {
		try {
			return future.get(HostProcess.START_UP.toSeconds() * 2, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw new AssertionError("The run " + name + " failed: " + ex.getCause().getMessage(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new AssertionError("The run " + name + " did not get there in time", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	private static List<HttpResponse<String>> threeGets(HostReport run) {
		List<HttpResponse<String>> responses = new ArrayList<>();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + run.port() + "/limited"))
			.timeout(Duration.ofSeconds(30))
			.build();
		for (int i = 0; i < 3; i++) {
			try {
				responses.add(HTTP.send(request, HttpResponse.BodyHandlers.ofString()));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(run.name() + ": GET /limited failed", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
		return responses;
	}

}
