package dev.ratelimit.spring.enforce;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.test.app.XClient;
import dev.ratelimit.test.TestRedis;
import dev.ratelimit.test.WindowBoundaries;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A burst keeps the limit: two application instances on one healthy Redis, 200 requests of one client at once (100
 * to each), admit exactly the limit of 50, for each algorithm and failure policy, on Spring MVC (where 100 request
 * threads compete for 2 cores) and WebFlux. Every answer of the measured burst is Redis's: no call timed out, no limit
 * failed open, closed or local, every 429 carries Redis's fields (the warm-up burst before it, which starts a cold
 * JVM's threads, may pass the timeout on a busy machine). A probe around the limiter proves that the decisions
 * overlapped, and the decisions per script call that they shared calls. Also on two separate JVMs.
 *
 * <p>
 * {@code ratelimit.redis.timeout} is 1 s here, four times the default: on a machine loaded far beyond its cores
 * ({@code verify-under-load}), the Redis server itself waits for the CPU, and a call it answers that late is a timeout
 * by the rule (docs/HTTP.md, "When Redis fails"; a limit of 50 then admitted 76 with the default, fail-open). That rule,
 * which keeps the application's own scheduling from failing a call, is {@code FairDeadlinesTest}'s, on a clock of the
 * test's.
 */
class BurstIntegrationTests {

	private static final int LIMIT = 50;

	private static final int REQUESTS = 200;

	private static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "sliding-window-counter",
			"token-bucket");

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@ParameterizedTest(name = "{0} {1} {2}")
	@CsvSource({ "servlet, fail-open, lettuce", "servlet, fail-local, lettuce", "servlet, fail-closed, lettuce",
			"servlet, fail-open, jedis", "reactive, fail-open, lettuce" })
	void aBurstOfOneClientAdmitsExactlyTheLimit(String webApplicationType, String failurePolicy, String client)
			throws Exception {
		String prefix = "burst-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(webApplicationType, failurePolicy, client, prefix);
				ConfigurableApplicationContext second = start(webApplicationType, failurePolicy, client, prefix)) {
			List<ConfigurableApplicationContext> instances = List.of(first, second);
			for (String algorithm : ALGORITHMS) {
				List<Integer> ports = instances.stream()
					.map((instance) -> ((WebServerApplicationContext) instance).getWebServer().getPort())
					.toList();
				// the rules' windows are an hour: the burst stays inside one (a sliding window counter's estimate just
				// after a window starts admits one unit more, by its rule)
				WindowBoundaries.awaitRoom(Duration.ofHours(1), Duration.ofSeconds(30));
				warmUp(ports, algorithm);
				instances.forEach((instance) -> instance.getBean(InFlightProbe.class).reset());
				// the measured burst's decisions: Redis answered every one (a cold JVM's warm-up on a busy machine
				// may have run out of ratelimit.redis.timeout before its call, and applied the failure policy)
				List<Double> before = notAnsweredByRedis(instances);
				List<HttpResponse<String>> responses = burst(ports, algorithm);
				String what = webApplicationType + " " + failurePolicy + " " + client + " " + algorithm;
				assertExactlyTheLimit(responses, what, algorithm);
				assertThat(notAnsweredByRedis(instances))
					.as(what + ": calls timed out, failed; decisions fail-open, fail-closed, local-allowed, local-denied")
					.isEqualTo(before);
				for (ConfigurableApplicationContext instance : instances) {
					// The decisions overlapped: many were waiting for Redis at once on each instance.
					assertThat(instance.getBean(InFlightProbe.class).peak()).as(what + ": peak decisions in flight")
						.isGreaterThanOrEqualTo(2);
				}
			}
			for (ConfigurableApplicationContext instance : instances) {
				// decisions that overlapped shared script calls (ratelimit.redis.batch.size): more decisions than calls
				DistributionSummary batches = instance.getBean(MeterRegistry.class)
					.get("ratelimit.redis.batch.size")
					.summary();
				assertThat(batches.totalAmount()).as(webApplicationType + " " + client + ": decisions per script call")
					.isGreaterThan(batches.count());
			}
		}
	}

	/**
	 * Per instance, its Redis calls that timed out and that failed, then its decisions by each failure policy
	 * (fail-open, fail-closed, local-allowed, local-denied), counted by its meters.
	 */
	private static List<Double> notAnsweredByRedis(List<ConfigurableApplicationContext> instances) {
		List<Double> counts = new ArrayList<>();
		for (ConfigurableApplicationContext instance : instances) {
			MeterRegistry registry = instance.getBean(MeterRegistry.class);
			for (String outcome : List.of("timeout", "failure")) {
				Timer calls = Search.in(registry).name("ratelimit.redis.calls").tag("outcome", outcome).timer();
				counts.add((calls != null) ? (double) calls.count() : 0.0);
			}
			for (String outcome : List.of("fail-open", "fail-closed", "local-allowed", "local-denied")) {
				counts.add(Search.in(registry)
					.name("ratelimit.decisions")
					.tag("outcome", outcome)
					.counters()
					.stream()
					.mapToDouble(Counter::count)
					.sum());
			}
		}
		return counts;
	}

	/**
	 * The same burst on two separate JVMs (Spring MVC, Lettuce, the defaults), as two application servers are: each
	 * instance's timeouts and Redis calls read from its {@code /actuator/metrics}.
	 */
	@Test
	void aBurstOnTwoSeparateJvmsAdmitsExactlyTheLimit() throws Exception {
		String prefix = "burst-jvms-" + UUID.randomUUID() + ":";
		List<Process> processes = new ArrayList<>();
		try {
			List<Integer> ports = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				int port = freePort();
				List<String> command = new ArrayList<>(List.of(
						Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						// as the test JVMs (test.jvm.args in the pom): a start on C1 alone costs less CPU
						"-XX:TieredStopAtLevel=1", "-cp",
						System.getProperty("java.class.path"), BurstApplication.class.getName(), "--server.port=" + port,
						"--management.endpoints.web.exposure.include=metrics"));
				List<String> arguments = arguments("servlet", "fail-open", "lettuce", prefix);
				command.addAll(arguments.subList(1, arguments.size()));
				processes.add(new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.start());
				ports.add(port);
			}
			for (int port : ports) {
				awaitStarted(port);
			}
			for (String algorithm : ALGORITHMS) {
				// the rules' windows are an hour: the burst stays inside one (a sliding window counter's estimate just
				// after a window starts admits one unit more, by its rule)
				WindowBoundaries.awaitRoom(Duration.ofHours(1), Duration.ofSeconds(30));
				warmUp(ports, algorithm);
				// the measured burst's calls: none timed out or failed (a cold JVM's warm-up may have)
				List<Double> before = unansweredCalls(ports);
				assertExactlyTheLimit(burst(ports, algorithm), "two JVMs " + algorithm, algorithm);
				assertThat(unansweredCalls(ports)).as("two JVMs " + algorithm + ": calls timed out, failed")
					.isEqualTo(before);
			}
		}
		finally {
			for (Process process : processes) {
				process.destroy();
				process.waitFor(30, TimeUnit.SECONDS);
			}
		}
	}

	/** Per instance, its Redis calls that timed out and that failed, from its {@code /actuator/metrics}. */
	private List<Double> unansweredCalls(List<Integer> ports) throws Exception {
		List<Double> counts = new ArrayList<>();
		for (int port : ports) {
			for (String outcome : List.of("timeout", "failure")) {
				HttpResponse<String> metric = this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
						+ port + "/actuator/metrics/ratelimit.redis.calls?tag=outcome:" + outcome)).build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(metric.statusCode()).isEqualTo(200);
				counts.add(JsonPath.<List<Double>>read(metric.body(),
						"$.measurements[?(@.statistic == 'COUNT')].value").get(0));
			}
		}
		return counts;
	}

	private void awaitStarted(int port) throws Exception {
		long giveUp = System.nanoTime() + Duration.ofSeconds(120).toNanos();
		while (true) {
			try {
				this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/metrics"))
					.build(), HttpResponse.BodyHandlers.discarding());
				return;
			}
			catch (java.io.IOException ex) {
				if (System.nanoTime() - giveUp > 0) {
					throw new IllegalStateException("the instance on port " + port + " did not start", ex);
				}
				Thread.sleep(100);
			}
		}
	}

	private static int freePort() throws java.io.IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static void assertExactlyTheLimit(List<HttpResponse<String>> responses, String what, String algorithm) {
		assertThat(responses).as(what).filteredOn((response) -> response.statusCode() == 200)
			.hasSize(LIMIT)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("RateLimit")).isPresent());
		assertThat(responses).as(what).filteredOn((response) -> response.statusCode() == 429)
			.hasSize(REQUESTS - LIMIT)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("RateLimit")).as(what)
				.hasValueSatisfying((value) -> assertThat(value).startsWith("\"" + algorithm + "\";r=0")));
	}

	/**
	 * Warmed up as the applications were: each instance has decided once for another client (JIT, first
	 * connection), then a burst of that client's as large as the measured one has grown the servers' thread pools, so
	 * that the measured burst is not the one that starts a cold JVM's request threads.
	 */
	private void warmUp(List<Integer> ports, String algorithm) throws Exception {
		String warmUp = "warm-up-" + UUID.randomUUID();
		for (int port : ports) {
			assertThat(send(port, algorithm, warmUp).get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		}
		List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
		for (int i = 0; i < REQUESTS; i++) {
			burst.add(send(ports.get(i % ports.size()), algorithm, warmUp));
		}
		for (CompletableFuture<HttpResponse<String>> response : burst) {
			assertThat(response.get(120, TimeUnit.SECONDS).statusCode()).isIn(200, 429);
		}
	}

	/** {@link #REQUESTS} requests of one new client at once, spread over the instances. */
	private List<HttpResponse<String>> burst(List<Integer> ports, String algorithm) throws Exception {
		String clientKey = UUID.randomUUID().toString();
		List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
		for (int i = 0; i < REQUESTS; i++) {
			burst.add(send(ports.get(i % ports.size()), algorithm, clientKey));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> response : burst) {
			responses.add(response.get(120, TimeUnit.SECONDS));
		}
		return responses;
	}

	private CompletableFuture<HttpResponse<String>> send(int port, String algorithm, String clientKey) {
		return this.http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + algorithm))
			.header("X-Client", clientKey)
			.timeout(Duration.ofSeconds(100))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext start(String webApplicationType, String failurePolicy, String client,
			String prefix) {
		return new SpringApplicationBuilder(BurstApplication.class)
			.run(arguments(webApplicationType, failurePolicy, client, prefix).toArray(String[]::new));
	}

	/** The instances' arguments, the first {@code --server.port=0}. */
	private static List<String> arguments(String webApplicationType, String failurePolicy, String client,
			String prefix) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				"--ratelimit.redis.client=" + client, "--ratelimit.redis.timeout=1s",
				"--ratelimit.defaults.failure-policy=" + failurePolicy,
				"--ratelimit.fail-local.instances=2"));
		for (int i = 0; i < ALGORITHMS.size(); i++) {
			String rule = "--ratelimit.filter.rules[" + i + "].";
			arguments.addAll(List.of(rule + "name=" + ALGORITHMS.get(i), rule + "paths=/" + ALGORITHMS.get(i),
					rule + "algorithm=" + ALGORITHMS.get(i), rule + "limit=" + LIMIT, rule + "window=1h",
					rule + "key=@xClient.of(#request)"));
		}
		return arguments;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class BurstApplication {

		/** An instance in a JVM of its own; it ends when the test's JVM does (its standard input closes). */
		public static void main(String[] args) {
			Thread parent = new Thread(() -> {
				try {
					while (System.in.read() != -1) {
						// nothing is sent: the stream ends when the test's JVM exits, however it ends
					}
				}
				catch (java.io.IOException ex) {
					// the same
				}
				System.exit(0);
			});
			parent.setDaemon(true);
			parent.start();
			new SpringApplicationBuilder(BurstApplication.class).run(args);
		}

		@Bean
		XClient xClient() {
			return new XClient();
		}

		@Bean
		BurstController burstController() {
			return new BurstController();
		}

		@Bean
		static InFlightProbe inFlightProbe() {
			return new InFlightProbe();
		}

		/** Reactor Netty resources of its own: closing one instance must not stop the other's event loops. */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			return factory;
		}

	}

	@RestController
	static class BurstController {

		@GetMapping("/{algorithm}")
		String limited(@PathVariable String algorithm) {
			return algorithm;
		}

	}

	/**
	 * Counts the limiter's decisions in flight (asked, not yet answered) around the application's
	 * {@link RateLimiter}, and keeps the peak: the real limiter still decides.
	 */
	static final class InFlightProbe implements BeanPostProcessor {

		private final AtomicInteger inFlight = new AtomicInteger();

		private final AtomicInteger peak = new AtomicInteger();

		void reset() {
			this.peak.set(0);
		}

		int peak() {
			return this.peak.get();
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (!(bean instanceof RateLimiter limiter)) {
				return bean;
			}
			return new RateLimiter() {

				@Override
				public RateLimitDecision tryAcquire(String clientId, List<LimitRequest> limits) {
					return limiter.tryAcquire(clientId, limits);
				}

				@Override
				public RateLimiter withClock(InstantSource clock) {
					return limiter.withClock(clock);
				}

				@Override
				public CompletionStage<RateLimitDecision> tryAcquireAsync(String clientId,
						List<LimitRequest> limits) {
					InFlightProbe.this.peak.accumulateAndGet(InFlightProbe.this.inFlight.incrementAndGet(), Math::max);
					return limiter.tryAcquireAsync(clientId, limits)
						.whenComplete((decision, failure) -> InFlightProbe.this.inFlight.decrementAndGet());
				}

				@Override
				public LimitDecision peek(String clientId, LimitRequest limit) {
					return limiter.peek(clientId, limit);
				}

				@Override
				public CompletionStage<LimitDecision> peekAsync(String clientId, LimitRequest limit) {
					return limiter.peekAsync(clientId, limit);
				}

				@Override
				public int reset(String clientId, List<LimitDefinition> limits) {
					return limiter.reset(clientId, limits);
				}

			};
		}

	}

}
