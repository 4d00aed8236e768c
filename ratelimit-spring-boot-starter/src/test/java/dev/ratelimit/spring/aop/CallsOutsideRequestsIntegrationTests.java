package dev.ratelimit.spring.aop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimitKeyMissingException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.NoBlocking;
import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @RateLimited} on a bean called outside any HTTP request (a {@code @Scheduled} job, a plain thread),
 * on a real Redis, in an application without a web stack and in a Spring MVC one: exact across two application
 * contexts, one budget for a limit without a key, a missing key refused, the denial's name and retry-after, and
 * waits for a permit that take the retry-after and no more decisions than needed, blocking, as a delayed
 * {@code CompletionStage} and as a delayed {@code Mono} or JDK {@code Flow.Publisher} (with BlockHound watching).
 */
@ExtendWith(NoBlocking.class)
class CallsOutsideRequestsIntegrationTests {

	private static final int LIMIT = 20;

	@ParameterizedTest
	@ValueSource(strings = { "none", "servlet" })
	void concurrentCallsOverTwoContextsAdmitExactlyTheLimit(String webApplicationType) throws Exception {
		String prefix = "outside-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(webApplicationType, prefix);
				ConfigurableApplicationContext second = start(webApplicationType, prefix)) {
			List<Partner> partners = List.of(first.getBean(Partner.class), second.getBean(Partner.class));
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<Future<String>> calls = new ArrayList<>();
				for (int i = 0; i < 100; i++) {
					Partner partner = partners.get(i % 2);
					calls.add(threads.submit(() -> {
						start.await();
						return partner.call("acme");
					}));
				}
				start.countDown();
				int admitted = 0;
				List<RateLimitExceededException> denials = new ArrayList<>();
				for (Future<String> call : calls) {
					try {
						assertThat(call.get(60, TimeUnit.SECONDS)).isEqualTo("called acme");
						admitted++;
					}
					catch (ExecutionException ex) {
						denials.add((RateLimitExceededException) ex.getCause());
					}
				}
				assertThat(admitted).isEqualTo(LIMIT);
				assertThat(denials).hasSize(100 - LIMIT).allSatisfy((denied) -> {
					assertThat(denied.getLimitName()).isEqualTo("partner");
					assertThat(denied.getViolatedPolicies()).containsExactly("partner");
					// a fixed window of 1 h: the wait is the rest of the hour
					assertThat(denied.getRetryAfterMs()).isBetween(1L, 3_600_000L);
					assertThat(denied.getRetryAfter()).contains(Duration.ofMillis(denied.getRetryAfterMs()));
				});
				// another account has its own budget
				assertThat(partners.get(0).call("globex")).isEqualTo("called globex");
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	void aScheduledJobInTwoContextsIsLimitedExactly() throws Exception {
		String prefix = "scheduled-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = startScheduled(prefix);
				ConfigurableApplicationContext second = startScheduled(prefix)) {
			Job one = first.getBean(Job.class);
			Job two = second.getBean(Job.class);
			// each job runs every 5 ms; 30 runs each are three times the limit
			assertThat(one.ran.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(two.ran.await(60, TimeUnit.SECONDS)).isTrue();
			first.close();
			second.close();
			assertThat(one.admitted.get() + two.admitted.get()).isEqualTo(10);
			assertThat(one.denied.get() + two.denied.get()).isGreaterThanOrEqualTo(50);
		}
	}

	@Test
	void aWebFluxHandlerCalledByTheApplicationItselfIsLimitedToo() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PlainHandlerApplication.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--spring.main.web-application-type=reactive",
				"--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=plain-" + UUID.randomUUID() + ":", "--ratelimit.redis.timeout=30s")) {
			String uri = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort()
					+ "/plain";
			HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				statuses.add(http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30)).build(),
						HttpResponse.BodyHandlers.ofString()).statusCode());
			}
			// decided once per request, on its arrival
			assertThat(statuses).containsExactly(200, 200, 429);
			PlainHandler handler = context.getBean(PlainHandler.class);
			// called directly, as a job would: the calls outside requests have a budget of their own
			assertThat(handler.plain()).isEqualTo("plain");
			assertThat(handler.plain()).isEqualTo("plain");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(handler::plain);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "none", "servlet" })
	void aLimitWithoutKeyIsOneBudgetForAllCalls(String webApplicationType) throws Exception {
		try (ConfigurableApplicationContext context = start(webApplicationType, "outside-" + UUID.randomUUID() + ":")) {
			Partner partner = context.getBean(Partner.class);
			AtomicInteger admitted = new AtomicInteger();
			Thread[] threads = new Thread[5];
			for (int i = 0; i < threads.length; i++) {
				String account = "account-" + i;
				threads[i] = new Thread(() -> {
					try {
						partner.everyone(account);
						admitted.incrementAndGet();
					}
					catch (RateLimitExceededException ex) {
						// denied: counted by what is left
					}
				});
				threads[i].start();
			}
			for (Thread thread : threads) {
				thread.join(30_000);
			}
			assertThat(admitted).hasValue(3);
			if (context instanceof WebServerApplicationContext server) {
				// an operator reads and resets that one budget: the client calls:all
				String uri = "http://127.0.0.1:" + server.getWebServer().getPort()
						+ "/actuator/ratelimits/everyone?client=calls:all";
				HttpClient http = HttpClient.newHttpClient();
				HttpResponse<String> state = http.send(HttpRequest.newBuilder(URI.create(uri))
					.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
				assertThat(state.statusCode()).as(state.body()).isEqualTo(200);
				assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].remaining")).containsExactly(0);
				HttpResponse<String> reset = http.send(HttpRequest.newBuilder(URI.create(uri)).DELETE()
					.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
				assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
				assertThat(JsonPath.<Integer>read(reset.body(), "$.deleted")).isEqualTo(1);
				assertThat(partner.everyone("after-the-reset")).isEqualTo("called after-the-reset");
			}
		}
	}

	@Test
	void aKeyThatIsMissingOutsideARequestIsRefused() throws Exception {
		try (ConfigurableApplicationContext context = start("none", "outside-" + UUID.randomUUID() + ":")) {
			assertThatExceptionOfType(RateLimitKeyMissingException.class)
				.isThrownBy(() -> context.getBean(Partner.class).call(null))
				.satisfies((ex) -> assertThat(ex.getBody().getDetail()).contains("'partner'")
					.contains("outside an HTTP request"));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "blocking", "completion-stage", "mono", "flow-publisher" })
	void aDeniedCallWaitsTheRetryAfterAndIsDecidedOnceMore(String style) throws Exception {
		try (ConfigurableApplicationContext context = start("none", "outside-" + UUID.randomUUID() + ":")) {
			Waiting waiting = context.getBean(Waiting.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			String account = "waits-" + style;
			// 2 tokens, one more every 300 ms from the first call: the third is denied, then admitted 300 ms after it
			long first = System.nanoTime();
			call(waiting, style, account);
			call(waiting, style, account);
			long callsBefore = scriptCalls(registry);
			long start = System.nanoTime();
			assertThat(call(waiting, style, account)).isEqualTo("waited " + account);
			long end = System.nanoTime();
			assertThat(scriptCalls(registry) - callsBefore).as("decisions for one permit after one wait: no polling")
				.isEqualTo(2);
			// not before the token exists (Redis' clock counts whole ms), and without a needless second wait
			assertThat((end - first) / 1_000_000).isGreaterThanOrEqualTo(299);
			assertThat((end - start) / 1_000_000).isLessThan(1_500);
			// the method never ran on the Redis client's I/O threads (Netty's), where Redis' answers complete
			assertThat(waiting.stageThreads())
				.noneMatch((thread) -> thread instanceof io.netty.util.concurrent.FastThreadLocalThread);
		}
	}

	@Test
	void aReactiveTypeOfSpringsRegistryIsDecidedWhenSubscribedNotWhenCalled() throws Exception {
		try (ConfigurableApplicationContext context = start("none", "outside-" + UUID.randomUUID() + ":")) {
			Waiting waiting = context.getBean(Waiting.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			long callsBefore = scriptCalls(registry);
			List<Flow.Publisher<String>> unsubscribed = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				unsubscribed.add(waiting.flow("subscribed-later"));
			}
			assertThat(scriptCalls(registry) - callsBefore).as("no decision before a subscription").isZero();
			assertThat(JdkFlowAdapter.flowPublisherToFlux(unsubscribed.get(0)).single().block(Duration.ofSeconds(30)))
				.isEqualTo("waited subscribed-later");
			assertThat(scriptCalls(registry) - callsBefore).isEqualTo(1);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "blocking", "completion-stage", "mono", "flow-publisher" })
	void aWaitLongerThanMaxWaitIsNotWaited(String style) throws Exception {
		try (ConfigurableApplicationContext context = start("none", "outside-" + UUID.randomUUID() + ":")) {
			Waiting waiting = context.getBean(Waiting.class);
			String account = "impatient-" + style;
			// 1 token a second: the second call would wait about 1 s
			assertThat(callImpatiently(waiting, style, account)).isEqualTo("waited " + account);
			long start = System.nanoTime();
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> callImpatiently(waiting, style, account))
				.satisfies((ex) -> assertThat(ex.getRetryAfterMs()).isGreaterThan(100));
			assertThat((System.nanoTime() - start) / 1_000_000).as("gave up without waiting the retry-after")
				.isLessThan(500);
		}
	}

	private static String call(Waiting waiting, String style, String account) throws Exception {
		return switch (style) {
			case "blocking" -> waiting.blocking(account);
			case "completion-stage" -> unwrap(() -> waiting.stage(account).toCompletableFuture().get(30, TimeUnit.SECONDS));
			case "flow-publisher" -> JdkFlowAdapter.flowPublisherToFlux(waiting.flow(account))
				.single()
				.block(Duration.ofSeconds(30));
			default -> waiting.mono(account).block(Duration.ofSeconds(30));
		};
	}

	private static String callImpatiently(Waiting waiting, String style, String account) throws Exception {
		return switch (style) {
			case "blocking" -> waiting.impatient(account);
			case "completion-stage" -> unwrap(() -> waiting.impatientStage(account).toCompletableFuture().get(30, TimeUnit.SECONDS));
			case "flow-publisher" -> JdkFlowAdapter.flowPublisherToFlux(waiting.impatientFlow(account))
				.single()
				.block(Duration.ofSeconds(30));
			default -> waiting.impatientMono(account).block(Duration.ofSeconds(30));
		};
	}

	private interface Call {

		String call() throws Exception;

	}

	private static String unwrap(Call call) throws Exception {
		try {
			return call.call();
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	private static long scriptCalls(MeterRegistry registry) {
		return registry.find("ratelimit.redis.calls").timers().stream().mapToLong(Timer::count).sum();
	}

	private static ConfigurableApplicationContext start(String webApplicationType, String prefix) {
		return new SpringApplicationBuilder(OutsideApplication.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				// exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open
				"--ratelimit.redis.timeout=30s", "--management.endpoints.web.exposure.include=ratelimits");
	}

	private static ConfigurableApplicationContext startScheduled(String prefix) {
		return new SpringApplicationBuilder(ScheduledApplication.class).run("--spring.main.web-application-type=none",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				"--ratelimit.redis.timeout=30s");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Partner.class, Waiting.class })
	static class OutsideApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableScheduling
	@Import({ Partner.class, Job.class })
	static class ScheduledApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(PlainHandler.class)
	static class PlainHandlerApplication {

	}

	@RestController
	static class PlainHandler {

		@RateLimited(name = "plain-handler", algorithm = "fixed-window", limit = 2, window = "1h", maxWait = "0")
		@GetMapping("/plain")
		public String plain() {
			return "plain";
		}

	}

	/** A scheduled job calling the partner; counts what happened to its calls. */
	static class Job {

		private final Partner partner;

		final AtomicInteger admitted = new AtomicInteger();

		final AtomicInteger denied = new AtomicInteger();

		final CountDownLatch ran = new CountDownLatch(30);

		Job(Partner partner) {
			this.partner = partner;
		}

		@Scheduled(fixedDelay = 5)
		void run() {
			try {
				this.partner.job();
				this.admitted.incrementAndGet();
			}
			catch (RateLimitExceededException ex) {
				this.denied.incrementAndGet();
			}
			this.ran.countDown();
		}

	}

	/** A client of a partner API, called from background threads. */
	@Service
	static class Partner {

		@RateLimited(name = "partner", algorithm = "fixed-window", limit = LIMIT, window = "1h", key = "#account",
				maxWait = "0")
		String call(String account) {
			return "called " + account;
		}

		@RateLimited(name = "job", algorithm = "fixed-window", limit = 10, window = "1h", maxWait = "0")
		String job() {
			return "called";
		}

		@RateLimited(name = "everyone", algorithm = "fixed-window", limit = 3, window = "1h", maxWait = "0")
		String everyone(String account) {
			return "called " + account;
		}

	}

	/** 2 tokens, one more every 300 ms, waiting up to the default max-wait (2 s) or 100 ms. */
	@Service
	static class Waiting {

		@RateLimited(name = "waiting", algorithm = "token-bucket", limit = 2, window = "600ms", key = "#account")
		String blocking(String account) {
			return "waited " + account;
		}

		private final List<Thread> stageThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

		/** The threads that ran {@link #stage} (a method: the test holds the bean's proxy, whose fields are unset). */
		List<Thread> stageThreads() {
			return this.stageThreads;
		}

		@RateLimited(name = "waiting", algorithm = "token-bucket", limit = 2, window = "600ms", key = "#account")
		CompletionStage<String> stage(String account) {
			this.stageThreads.add(Thread.currentThread());
			return CompletableFuture.completedFuture("waited " + account);
		}

		@RateLimited(name = "waiting", algorithm = "token-bucket", limit = 2, window = "600ms", key = "#account")
		Mono<String> mono(String account) {
			return Mono.just("waited " + account);
		}

		/** A reactive type of Spring's registry other than Reactor's: decided when subscribed, as a Mono is. */
		@RateLimited(name = "waiting", algorithm = "token-bucket", limit = 2, window = "600ms", key = "#account")
		Flow.Publisher<String> flow(String account) {
			return JdkFlowAdapter.publisherToFlowPublisher(Mono.just("waited " + account));
		}

		@RateLimited(name = "impatient", algorithm = "token-bucket", limit = 1, window = "1s", key = "#account",
				maxWait = "100ms")
		Flow.Publisher<String> impatientFlow(String account) {
			return JdkFlowAdapter.publisherToFlowPublisher(Mono.just("waited " + account));
		}

		@RateLimited(name = "impatient", algorithm = "token-bucket", limit = 1, window = "1s", key = "#account",
				maxWait = "100ms")
		String impatient(String account) {
			return "waited " + account;
		}

		@RateLimited(name = "impatient", algorithm = "token-bucket", limit = 1, window = "1s", key = "#account",
				maxWait = "100ms")
		CompletionStage<String> impatientStage(String account) {
			return CompletableFuture.completedFuture("waited " + account);
		}

		@RateLimited(name = "impatient", algorithm = "token-bucket", limit = 1, window = "1s", key = "#account",
				maxWait = "100ms")
		Mono<String> impatientMono(String account) {
			return Mono.just("waited " + account);
		}

	}

}
