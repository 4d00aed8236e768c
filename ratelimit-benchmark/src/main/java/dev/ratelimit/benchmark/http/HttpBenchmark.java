package dev.ratelimit.benchmark.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.benchmark.Options;
import dev.ratelimit.benchmark.Table;
import dev.ratelimit.benchmark.gateway.BenchmarkGateway;
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
 * by a request header); and a Spring Cloud Gateway proxying to the unlimited endpoint, on a route without a limit and
 * with {@code RequestRateLimiter} on the gateway's own {@code RedisRateLimiter} and on the starter's replacement
 * ({@link BenchmarkGateway}). Four instances of {@link BenchmarkApplication} and, when a gateway scenario runs, the
 * gateway run in this JVM, on the Redis the benchmark started ({@link Instance}); every round runs every scenario once
 * (interleaved, so the gateway's two limiters alternate), and the table shows medians.
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
		TYPICAL("ratelimit.denials.remember=true", "management.endpoints.web.exposure.include=health,prometheus"),

		/**
		 * The gateway ({@link BenchmarkGateway}), no registries: neither the gateway's metrics nor the starter's are
		 * recorded, on either route.
		 */
		GATEWAY("spring.autoconfigure.exclude=" + String.join(",", NO_REGISTRIES));

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
	 * Per request: {@code redisCallsPerRequest}, the script calls and {@code PING}s Redis answered;
	 * {@code scriptCallsPerRequest}, the script calls alone ({@code EVALSHA} and {@code EVAL}: 1 where each decision is
	 * a call of its own, less where decisions share one); {@code appCpuMicros}, the CPU time of this JVM (the
	 * applications and the gateway), in µs; {@code redisCpuMicros}, the Redis server's ({@code INFO cpu}), in µs.
	 */
	public record Measurement(double requestsPerSecond, double p50Ms, double p99Ms, double non2xxShare,
			double redisCallsPerRequest, double scriptCallsPerRequest, double appCpuMicros, double redisCpuMicros) {
	}

	/** The request header the typical instance's limit and the gateway's routes are keyed by; wrk always sends it. */
	static final String API_KEY_HEADER = BenchmarkGateway.KEY_HEADER;

	/** The gateway's route with the starter's limiter; compared with {@link #GATEWAYS_OWN} after the table. */
	private static final String STARTERS = "gateway: RequestRateLimiter with the starter's limiter, admitting";

	private static final String GATEWAYS_OWN = "gateway: RequestRateLimiter with its own RedisRateLimiter, admitting";

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
				new Scenario("typical: limited by @RateLimited on a header key", Instance.TYPICAL, "/typical"),
				new Scenario("gateway: a route without a limit", Instance.GATEWAY,
						BenchmarkGateway.PROXY_ONLY + "/unlimited"),
				new Scenario(GATEWAYS_OWN, Instance.GATEWAY, BenchmarkGateway.GATEWAYS_OWN + "/unlimited"),
				new Scenario(STARTERS, Instance.GATEWAY, BenchmarkGateway.STARTERS + "/unlimited"));
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
		List<Scenario> all = scenarios();
		// the first two are the units of the ratios
		List<Scenario> scenarios = all.stream()
			.filter((scenario) -> all.indexOf(scenario) < 2 || scenario.name().contains(settings.only()))
			.toList();
		boolean gatewayRuns = scenarios.stream().anyMatch((scenario) -> scenario.instance() == Instance.GATEWAY);
		try (ConfigurableApplicationContext plain = start(redis, Instance.PLAIN);
				ConfigurableApplicationContext forgetting = start(redis, Instance.FORGETTING);
				ConfigurableApplicationContext observed = start(redis, Instance.OBSERVED);
				ConfigurableApplicationContext typical = start(redis, Instance.TYPICAL);
				// proxying to the plain instance's endpoints; only when a scenario of it runs
				ConfigurableApplicationContext gateway = gatewayRuns ? startGateway(redis, baseUrl(plain)) : null) {
			Map<Instance, String> base = new EnumMap<>(Instance.class);
			base.putAll(Map.of(Instance.PLAIN, baseUrl(plain), Instance.FORGETTING, baseUrl(forgetting),
					Instance.OBSERVED, baseUrl(observed), Instance.TYPICAL, baseUrl(typical)));
			if (gateway != null) {
				base.put(Instance.GATEWAY, baseUrl(gateway));
			}
			System.out.printf(Locale.ROOT, "%nHTTP: wrk %d threads, %d connections, %d rounds of %d s per scenario%n",
					wrkThreads, connections, rounds, seconds);
			// a warm-up run of 2 s before each scenario's first (JIT, connections, the denied client's first and only
			// admitted request)
			Map<String, List<Measurement>> results = Table.interleaved(scenarios, Scenario::name, rounds, true, "http ",
					(scenario, warmUp) -> Wrk.run(base.get(scenario.instance()) + scenario.path(), wrkThreads,
							connections, warmUp ? 2 : seconds, jedis));
			Map<String, Measurement> medians = new LinkedHashMap<>();
			results.forEach((name, measured) -> medians.put(name, new Measurement(
					Table.median(measured, Measurement::requestsPerSecond), Table.median(measured, Measurement::p50Ms),
					Table.median(measured, Measurement::p99Ms), Table.median(measured, Measurement::non2xxShare),
					Table.median(measured, Measurement::redisCallsPerRequest),
					Table.median(measured, Measurement::scriptCallsPerRequest),
					Table.median(measured, Measurement::appCpuMicros),
					Table.median(measured, Measurement::redisCpuMicros))));
			print(medians);
			return medians;
		}
	}

	/** @throws IllegalStateException when the instance has a registry it should not, or lacks one it should */
	static ConfigurableApplicationContext start(TestRedis redis, Instance instance) {
		return checked(new SpringApplicationBuilder(BenchmarkApplication.class)
			.properties("spring.config.location=classpath:/dev/ratelimit/benchmark/http/benchmark.properties",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"server.port=0")
			.properties(instance.properties)
			.run(), instance);
	}

	/** The gateway, its routes proxying to {@code backend}; without registries, as checked. */
	private static ConfigurableApplicationContext startGateway(TestRedis redis, String backend) {
		List<String> properties = new ArrayList<>(List.of(Instance.GATEWAY.properties));
		properties.addAll(List.of("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port()));
		return checked(BenchmarkGateway.start(backend, properties.toArray(String[]::new)), Instance.GATEWAY);
	}

	private static ConfigurableApplicationContext checked(ConfigurableApplicationContext context, Instance instance) {
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

	private static void print(Map<String, Measurement> medians) {
		List<Measurement> all = List.copyOf(medians.values());
		double unlimited = all.get(0).requestsPerSecond();
		double ping = all.get(1).requestsPerSecond();
		System.out.println();
		String header = "| %-70s | %9s | %11s | %8s | %8s | %8s | %8s | %15s | %16s | %11s | %13s |%n";
		System.out.printf(Locale.ROOT, header, "endpoint", "req/s", "x unlimited", "x PING", "p50 ms", "p99 ms",
				"non-2xx", "Redis calls/req", "script calls/req", "app CPU µs", "Redis CPU µs");
		System.out.printf(Locale.ROOT, header, "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:",
				"---:", "---:");
		medians.forEach((name, m) -> System.out.printf(Locale.ROOT,
				"| %-70s | %9.0f | %11.2f | %8.2f | %8.2f | %8.2f | %7.1f%% | %15.3f | %16.3f | %11.1f | %13.1f |%n",
				name, m.requestsPerSecond(), m.requestsPerSecond() / unlimited, m.requestsPerSecond() / ping, m.p50Ms(),
				m.p99Ms(), 100 * m.non2xxShare(), m.redisCallsPerRequest(), m.scriptCallsPerRequest(),
				m.appCpuMicros(), m.redisCpuMicros()));
		Measurement starters = medians.get(STARTERS);
		Measurement gatewaysOwn = medians.get(GATEWAYS_OWN);
		if (starters != null && gatewaysOwn != null) {
			System.out.printf(Locale.ROOT,
					"%ngateway, RequestRateLimiter: the starter's limiter serves %.2f x the requests per second of the"
							+ " gateway's own RedisRateLimiter (medians)%n",
					starters.requestsPerSecond() / gatewaysOwn.requestsPerSecond());
		}
	}

}
