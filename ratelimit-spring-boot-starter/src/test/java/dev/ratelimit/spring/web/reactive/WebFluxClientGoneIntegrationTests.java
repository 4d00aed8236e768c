package dev.ratelimit.spring.web.reactive;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

import dev.ratelimit.spring.observation.RateLimitObservationContext;
import dev.ratelimit.spring.observation.RateLimitOperation;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux client that goes away while its decision waits for Redis, over a real server and a Redis these tests
 * pause: Reactor Netty cancels the exchange, the decision goes on in Redis and settles as any (counted, remembered, its
 * lease given back), and nothing is logged at ERROR (Reactor's "Operator called default onErrorDropped" for a denial
 * that no one is left to receive). Each step knows where the request is rather than sleeping: the decision has started
 * (its observation), the exchange is cancelled (a filter around the starter's), Redis has answered (the meters).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({ NoBlocking.class, OutputCaptureExtension.class })
class WebFluxClientGoneIntegrationTests {

	/** Long against machine noise: Redis is resumed well before it, so that Redis decides, not the failure policy. */
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private TestRedis redis;

	private ConfigurableApplicationContext context;

	@BeforeAll
	void startRedisAndApplication() {
		this.redis = TestRedis.start();
		this.context = new SpringApplicationBuilder(GoneApplication.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--spring.main.web-application-type=reactive",
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--ratelimit.redis.timeout=" + TIMEOUT.toMillis() + "ms", "--ratelimit.redis.connect-timeout=2s",
				"--ratelimit.filter.rules[0].name=gone", "--ratelimit.filter.rules[0].paths=/counted",
				"--ratelimit.filter.rules[0].limit=1", "--ratelimit.filter.rules[0].window=1h",
				"--ratelimit.filter.rules[0].key=#header('X-Client')", "--ratelimit.filter.rules[1].name=gone-held",
				"--ratelimit.filter.rules[1].paths=/held", "--ratelimit.filter.rules[1].algorithm=concurrency",
				"--ratelimit.filter.rules[1].limit=1", "--ratelimit.filter.rules[1].window=30s",
				"--ratelimit.filter.rules[1].key=#header('X-Client')");
	}

	@AfterAll
	void stopApplicationAndRedis() {
		try {
			if (this.context != null) {
				this.context.close();
			}
		}
		finally {
			if (this.redis != null) {
				this.redis.close();
			}
		}
	}

	@Test
	void aClientGoneWhileRedisDeniesLeavesNoErrorAndItsDenialCounted(CapturedOutput output) throws Exception {
		assertThat(get("/counted", "spent").statusCode()).isEqualTo(200);
		double denied = decisions("gone", "denied").getAsDouble();

		goAwayWhileRedisDecides("/counted", "spent");
		await(() -> decisions("gone", "denied").getAsDouble() == denied + 1, "the denial counted");
		// Decided on the limiter's one connection after the denial: answered once the denial's stage has ended (where
		// Reactor would have logged what it dropped).
		assertThat(get("/counted", "another").statusCode()).isEqualTo(200);

		assertThat(output.getAll().lines().filter((line) -> line.contains(" ERROR ") || line.contains("onErrorDropped")))
			.as("lines logged at ERROR")
			.isEmpty();
	}

	@Test
	void aClientGoneWhileRedisAdmitsGivesBackTheLeaseItsDecisionTook(CapturedOutput output) throws Exception {
		double allowed = decisions("gone-held", "allowed").getAsDouble();

		goAwayWhileRedisDecides("/held", "gone");
		await(() -> decisions("gone-held", "allowed").getAsDouble() == allowed + 1, "the admission counted");
		await(() -> leasesHeld() == 0, "no lease held for the request that went away");
		// the release is sent, not waited for: the next request may find the lease still held for a moment
		await(() -> get("/held", "gone").statusCode() == 200, "the client's next request admitted");

		assertThat(output.getAll().lines().filter((line) -> line.contains(" ERROR "))).as("lines logged at ERROR")
			.isEmpty();
	}

	/**
	 * Sends {@code GET path} as {@code client} while Redis is paused, and goes away (closes the connection) once its
	 * decision has started; returns with the exchange cancelled and Redis resumed.
	 */
	private void goAwayWhileRedisDecides(String path, String client) throws Exception {
		Signals signals = this.context.getBean(Signals.class);
		signals.decisions.drainPermits();
		signals.cancelled.drainPermits();
		this.redis.pause();
		try {
			try (Socket socket = new Socket("127.0.0.1", port())) {
				OutputStream out = socket.getOutputStream();
				out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: " + client + "\r\n\r\n")
					.getBytes(StandardCharsets.US_ASCII));
				out.flush();
				assertThat(signals.decisions.tryAcquire(20, TimeUnit.SECONDS)).as("the decision started").isTrue();
			}
			assertThat(signals.cancelled.tryAcquire(20, TimeUnit.SECONDS)).as("the exchange cancelled").isTrue();
		}
		finally {
			this.redis.resume();
		}
	}

	private DoubleSupplier decisions(String limit, String outcome) {
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		return () -> {
			Counter counter = meters.find("ratelimit.decisions").tags("limit", limit, "outcome", outcome).counter();
			return (counter != null) ? counter.count() : 0;
		};
	}

	private double leasesHeld() {
		Gauge gauge = this.context.getBean(MeterRegistry.class).find("ratelimit.leases.held").gauge();
		return (gauge != null) ? gauge.value() : 0;
	}

	private HttpResponse<String> get(String path, String client) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(30))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private int port() {
		return ((WebServerApplicationContext) this.context).getWebServer().getPort();
	}

	/** Waits (at most 20 s) until {@code done}. */
	private static void await(Condition done, String what) throws Exception {
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!done.met()) {
			assertThat(System.nanoTime() - giveUp).as(what).isNegative();
			Thread.sleep(10);
		}
	}

	private interface Condition {

		boolean met() throws Exception;

	}

	/** Where a request is: its decisions started, its exchange cancelled. */
	static final class Signals implements ObservationHandler<RateLimitObservationContext>, WebFilter, Ordered {

		final Semaphore decisions = new Semaphore(0);

		final Semaphore cancelled = new Semaphore(0);

		@Override
		public void onStart(RateLimitObservationContext context) {
			if (context.getOperation() == RateLimitOperation.DECISION) {
				this.decisions.release();
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof RateLimitObservationContext;
		}

		/** Around the starter's filter: sees the exchange cancelled when its client goes away. */
		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			return chain.filter(exchange).doOnCancel(this.cancelled::release);
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@RestController
	static class GoneApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Signals signals() {
			return new Signals();
		}

		/** Reactor Netty resources of its own, closed without a quiet period (as the failure tests' applications). */
		@Bean
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			factory.setShutdownQuietPeriod(Duration.ZERO);
			return factory;
		}

		@GetMapping({ "/counted", "/held" })
		Mono<String> answer() {
			return Mono.just("ok");
		}

	}

}
