package dev.ratelimit.benchmark.http;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.benchmark.Options;
import dev.ratelimit.benchmark.RedisCounters;
import dev.ratelimit.benchmark.Table;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import redis.clients.jedis.JedisPooled;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The same trivial endpoint over HTTP, driven by {@code wrk} (Debian's package; {@code apt-get install wrk}):
 * unlimited, after one Redis round trip, limited by annotation and by filter rule, and one client flooding a denied
 * limit with remembered denials on and off, and the unlimited and limited endpoints again on an instance whose
 * decisions are observed, and on a typical application's instance (Actuator, Prometheus, observations, a limit keyed
 * by a request header). Four instances of {@link BenchmarkApplication} run in this JVM, on the Redis the benchmark
 * started ({@link Instance}); every round runs every scenario once (interleaved), and the table shows medians.
 *
 * <p>
 * Options: {@code --http-seconds} per scenario and round (default 5), {@code --rounds} (3), {@code --connections} (16),
 * {@code --wrk-threads} (2), {@code --only=<text>} (only the scenarios whose name contains it, and the first two,
 * the units of the ratios).
 */
public final class HttpBenchmark {

	/** One wrk run against a path of one instance. */
	record Scenario(String name, Instance instance, String path) {
	}

	/**
	 * The application's instances. Without observations, as most runs before them were: Boot's observation and
	 * metrics auto-configurations excluded, so neither registry exists and the starter observes and meters nothing.
	 */
	enum Instance {

		/** Remembered denials on (the default), no registries. */
		PLAIN("ratelimit.denials.remember=true", "spring.autoconfigure.exclude=" + String.join(",", NO_REGISTRIES)),

		/** Remembered denials off, no registries. */
		FORGETTING("ratelimit.denials.remember=false", "spring.autoconfigure.exclude=" + String.join(",", NO_REGISTRIES)),

		/**
		 * Boot's {@code ObservationRegistry} with its meter handler (a {@code SimpleMeterRegistry}, no tracer): every
		 * request is the server's observation, every decision one under it, and the starter's meters are recorded.
		 */
		OBSERVED("ratelimit.denials.remember=true", "spring.autoconfigure.exclude=" + PROMETHEUS),

		/**
		 * A typical application: Actuator, a Prometheus registry (exposed at {@code /actuator/prometheus}) and the
		 * {@code ObservationRegistry}; its limit is keyed by a request header.
		 */
		TYPICAL("ratelimit.denials.remember=true", "management.endpoints.web.exposure.include=health,prometheus");

		private final String[] properties;

		Instance(String... properties) {
			this.properties = properties;
		}

	}

	/** Boot's auto-configurations of the two registries: the {@code ObservationRegistry} and a {@code MeterRegistry}. */
	private static final String PROMETHEUS = "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration";

	private static final List<String> NO_REGISTRIES = List.of(PROMETHEUS,
			"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
			"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration");

	/**
	 * {@code appCpuMicros}: CPU time of this JVM (the three application instances) per request, in µs;
	 * {@code redisCpuMicros}: the Redis server's ({@code INFO cpu}) per request, in µs.
	 */
	public record Measurement(double requestsPerSecond, double p50Ms, double p99Ms, double non2xxShare,
			double redisCallsPerRequest, double appCpuMicros, double redisCpuMicros) {
	}

	/** The request header the typical instance's limit is keyed by. */
	static final String API_KEY_HEADER = "X-Api-Key";

	private static final Pattern REQUESTS_PER_SECOND = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

	private static final Pattern REQUESTS = Pattern.compile("([0-9]+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+([0-9]+)");

	private static final Pattern PERCENTILE = Pattern.compile("^\\s+(50|99)%\\s+([0-9.]+)(us|ms|s)\\s*$",
			Pattern.MULTILINE);

	/** This JVM, where the application instances run: its CPU time is theirs while wrk runs. */
	private static final com.sun.management.OperatingSystemMXBean PROCESS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private HttpBenchmark() {
	}

	/** The scenarios, in the order of the table; ratios are to the first two. */
	static List<Scenario> scenarios() {
		return List.of(new Scenario("unlimited", Instance.PLAIN, "/unlimited"),
				new Scenario("one Redis PING (the application's Lettuce client)", Instance.PLAIN, "/ping"),
				new Scenario("one script call of one command (the limiter's client)", Instance.PLAIN, "/script"),
				new Scenario("limited by @RateLimited (token bucket)", Instance.PLAIN, "/annotated"),
				new Scenario("limited by a filter rule (token bucket)", Instance.PLAIN, "/rule"),
				new Scenario("one client flooding a denied limit, denials remembered", Instance.PLAIN, "/denied"),
				new Scenario("one client flooding a denied limit, ratelimit.denials.remember=false", Instance.FORGETTING,
						"/denied"),
				new Scenario("observed: unlimited", Instance.OBSERVED, "/unlimited"),
				new Scenario("observed: limited by @RateLimited (token bucket)", Instance.OBSERVED, "/annotated"),
				new Scenario("observed: limited by a filter rule (token bucket)", Instance.OBSERVED, "/rule"),
				new Scenario("typical: one Redis PING", Instance.TYPICAL, "/ping"),
				new Scenario("typical: limited by @RateLimited on a header key", Instance.TYPICAL, "/typical"));
	}

	/** This part's options, read before anything runs. */
	public record Settings(int seconds, int rounds, int connections, int wrkThreads, String only) {

		/** @throws IllegalArgumentException for a value out of range */
		public static Settings of(Options options) {
			Settings settings = new Settings(options.number("http-seconds", 5, 1, 3600),
					options.number("rounds", 3, 1, 100), options.number("connections", 16, 1, 10_000),
					options.number("wrk-threads", 2, 1, 256), options.text("only", ""));
			if (settings.connections() < settings.wrkThreads()) {
				throw new IllegalArgumentException(
						"--connections must be at least --wrk-threads (wrk opens one or more per thread)");
			}
			return settings;
		}

	}

	public static Map<String, Measurement> run(Settings settings, TestRedis redis, JedisPooled jedis) throws Exception {
		int seconds = settings.seconds();
		int rounds = settings.rounds();
		int connections = settings.connections();
		int wrkThreads = settings.wrkThreads();
		try (ConfigurableApplicationContext plain = start(redis, Instance.PLAIN);
				ConfigurableApplicationContext forgetting = start(redis, Instance.FORGETTING);
				ConfigurableApplicationContext observed = start(redis, Instance.OBSERVED);
				ConfigurableApplicationContext typical = start(redis, Instance.TYPICAL)) {
			Map<Instance, String> base = Map.of(Instance.PLAIN, baseUrl(plain), Instance.FORGETTING,
					baseUrl(forgetting), Instance.OBSERVED, baseUrl(observed), Instance.TYPICAL, baseUrl(typical));
			System.out.printf(Locale.ROOT, "%nHTTP: wrk %d threads, %d connections, %d rounds of %d s per scenario%n",
					wrkThreads, connections, rounds, seconds);
			List<Scenario> all = scenarios();
			// the first two are the units of the ratios
			List<Scenario> scenarios = all.stream()
				.filter((scenario) -> all.indexOf(scenario) < 2 || scenario.name().contains(settings.only()))
				.toList();
			// a warm-up run of 2 s before each scenario's first (JIT, connections, the denied client's first and only
			// admitted request)
			Map<String, List<Measurement>> results = Table.interleaved(scenarios, Scenario::name, rounds, true, "http ",
					(scenario, warmUp) -> wrk(base.get(scenario.instance()) + scenario.path(), wrkThreads,
							connections, warmUp ? 2 : seconds, jedis));
			Map<String, Measurement> medians = new LinkedHashMap<>();
			results.forEach((name, measured) -> medians.put(name, new Measurement(
					Table.median(measured, Measurement::requestsPerSecond), Table.median(measured, Measurement::p50Ms),
					Table.median(measured, Measurement::p99Ms), Table.median(measured, Measurement::non2xxShare),
					Table.median(measured, Measurement::redisCallsPerRequest),
					Table.median(measured, Measurement::appCpuMicros),
					Table.median(measured, Measurement::redisCpuMicros))));
			print(medians);
			return medians;
		}
	}

	/** @throws IllegalStateException when the instance has a registry it should not, or lacks one it should */
	static ConfigurableApplicationContext start(TestRedis redis, Instance instance) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchmarkApplication.class)
			.properties("spring.config.location=classpath:/dev/ratelimit/benchmark/http/benchmark.properties",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"server.port=0")
			.properties(instance.properties)
			.run();
		boolean observed = context.getBeanProvider(ObservationRegistry.class).getIfAvailable() != null
				&& context.getBeanProvider(MeterRegistry.class).getIfAvailable() != null;
		boolean prometheus = context.getBeanNamesForType(PrometheusMeterRegistry.class).length > 0;
		boolean none = context.getBeanNamesForType(ObservationRegistry.class).length == 0
				&& context.getBeanNamesForType(MeterRegistry.class).length == 0;
		boolean asSaid = switch (instance) {
			case OBSERVED -> observed && !prometheus;
			case TYPICAL -> observed && prometheus;
			default -> none;
		};
		if (!asSaid) {
			context.close();
			throw new IllegalStateException("The " + instance + " instance's registries are not as its scenarios say");
		}
		return context;
	}

	private static String baseUrl(ConfigurableApplicationContext context) {
		return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
	}

	/** @throws IllegalArgumentException when wrk is not on the PATH */
	public static void requireWrk() throws InterruptedException {
		try {
			Process process = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
			process.getInputStream().readAllBytes();
			process.waitFor();
		}
		catch (IOException ex) {
			throw new IllegalArgumentException("the http part needs wrk on the PATH (Debian: apt-get install wrk)", ex);
		}
	}

	private static Measurement wrk(String url, int threads, int connections, int seconds, JedisPooled jedis)
			throws IOException, InterruptedException {
		long callsBefore = RedisCounters.clientCalls(jedis);
		double redisCpuBefore = RedisCounters.redisCpuSeconds(jedis);
		long appCpuBefore = PROCESS.getProcessCpuTime();
		// every request carries the API key that the typical instance's limit is keyed by
		Process process = new ProcessBuilder("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
				"--latency", "-H", API_KEY_HEADER + ": bench-client", url).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("wrk failed on " + url + ":\n" + output);
		}
		long appCpuNanos = PROCESS.getProcessCpuTime() - appCpuBefore;
		double redisCpu = RedisCounters.redisCpuSeconds(jedis) - redisCpuBefore;
		long calls = RedisCounters.clientCalls(jedis) - callsBefore;
		long requests = Long.parseLong(find(REQUESTS, output, url));
		Matcher non2xx = NON_2XX.matcher(output);
		long failed = non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0;
		Map<String, Double> percentiles = new HashMap<>();
		Matcher percentile = PERCENTILE.matcher(output);
		while (percentile.find()) {
			double value = Double.parseDouble(percentile.group(2));
			double ms = switch (percentile.group(3)) {
				case "us" -> value / 1000;
				case "s" -> value * 1000;
				default -> value;
			};
			percentiles.put(percentile.group(1), ms);
		}
		return new Measurement(Double.parseDouble(find(REQUESTS_PER_SECOND, output, url)),
				percentiles.getOrDefault("50", Double.NaN), percentiles.getOrDefault("99", Double.NaN),
				(double) failed / requests, (double) calls / requests, appCpuNanos / 1e3 / requests,
				redisCpu * 1e6 / requests);
	}

	private static String find(Pattern pattern, String output, String url) {
		Matcher matcher = pattern.matcher(output);
		if (!matcher.find()) {
			throw new IllegalStateException("no " + pattern + " in wrk's output for " + url + ":\n" + output);
		}
		return matcher.group(1);
	}

	private static void print(Map<String, Measurement> medians) {
		List<Measurement> all = List.copyOf(medians.values());
		double unlimited = all.get(0).requestsPerSecond();
		double ping = all.get(1).requestsPerSecond();
		System.out.println();
		String header = "| %-70s | %9s | %11s | %8s | %8s | %8s | %8s | %14s | %11s | %13s |%n";
		System.out.printf(Locale.ROOT, header, "endpoint", "req/s", "x unlimited", "x PING", "p50 ms", "p99 ms",
				"non-2xx", "Redis calls/req", "app CPU µs", "Redis CPU µs");
		System.out.printf(Locale.ROOT, header, "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:",
				"---:");
		medians.forEach((name, m) -> System.out.printf(Locale.ROOT,
				"| %-70s | %9.0f | %11.2f | %8.2f | %8.2f | %8.2f | %7.1f%% | %14.3f | %11.1f | %13.1f |%n", name,
				m.requestsPerSecond(), m.requestsPerSecond() / unlimited, m.requestsPerSecond() / ping, m.p50Ms(),
				m.p99Ms(), 100 * m.non2xxShare(), m.redisCallsPerRequest(), m.appCpuMicros(), m.redisCpuMicros()));
	}

}
