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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.autoconfigure.RateLimitAutoConfigurationTests;
import dev.ratelimit.spring.observation.RateLimitObservationContext;
import dev.ratelimit.spring.observation.RateLimitOperation;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.test.TestRedis;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Charge by outcome on a real Redis: a login limit that counts failed attempts only, by exception type (a call
 * outside a request), by a condition on the result, and by the HTTP status of a Spring MVC handler's answer with
 * the fields after the charge, on Spring MVC and WebFlux; a {@code Mono}'s outcome without blocking; concurrent failures overshoot the limit by no more than the calls in flight; and a
 * method whose result comes later refuses to start.
 */
@ExtendWith(NoBlocking.class)
class ChargeByOutcomeIntegrationTests {

	private static final int LIMIT = 5;

	@Test
	void successfulCallsAreNeverChargedAndFailedOnesAre() throws Exception {
		try (ConfigurableApplicationContext context = start("none")) {
			Logins logins = context.getBean(Logins.class);
			for (int i = 0; i < 20; i++) {
				assertThat(logins.login("alice", "right")).isEqualTo("welcome alice");
			}
			for (int i = 0; i < LIMIT; i++) {
				assertThatExceptionOfType(BadCredentials.class).isThrownBy(() -> logins.login("alice", "wrong"));
			}
			// the limit is spent: even the right password is refused, without running the method
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> logins.login("alice", "right"))
				.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("login"));
			assertThat(logins.attempts("alice")).isEqualTo(20 + LIMIT);
			// another user has a budget of its own
			assertThat(logins.login("bob", "right")).isEqualTo("welcome bob");
		}
	}

	@Test
	void aMonoIsChargedByItsOutcomeWithoutBlocking() throws Exception {
		try (ConfigurableApplicationContext context = start("none")) {
			Logins logins = context.getBean(Logins.class);
			for (int i = 0; i < 10; i++) {
				assertThat(logins.reactiveLogin("frank", "right").block(Duration.ofSeconds(30))).isEqualTo("welcome frank");
			}
			for (int i = 0; i < LIMIT; i++) {
				assertThatExceptionOfType(BadCredentials.class)
					.isThrownBy(() -> logins.reactiveLogin("frank", "wrong").block(Duration.ofSeconds(30)));
			}
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> logins.reactiveLogin("frank", "right").block(Duration.ofSeconds(30)));
		}
	}

	@Test
	void whileRedisFailsAFailLocalLimitIsReadAndChargedLocally() throws Exception {
		try (TestRedis own = TestRedis.start();
				ConfigurableApplicationContext context = new SpringApplicationBuilder(OutcomeApplication.class,
						ObservedOutcomes.class).run(
						"--spring.main.web-application-type=none", "--spring.data.redis.url=" + own.url(),
						"--ratelimit.redis.timeout=2s", "--ratelimit.defaults.failure-policy=fail-local")) {
			Logins logins = context.getBean(Logins.class);
			List<String> outcomes = context.getBean(ObservedOutcomes.class).outcomes;
			own.stop();
			for (int i = 0; i < 10; i++) {
				assertThat(logins.login("hank", "right")).isEqualTo("welcome hank");
			}
			for (int i = 0; i < LIMIT; i++) {
				assertThatExceptionOfType(BadCredentials.class).isThrownBy(() -> logins.login("hank", "wrong"));
			}
			// this instance's own count of the failures (its share: the whole limit, one instance)
			outcomes.clear();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> logins.login("hank", "right"));
			// the admission's read, refused by this instance: local-denied (not a fail-closed limit's 503)
			assertThat(outcomes).containsExactly("local-denied");
		}
	}

	/** The outcome of each decision observed (the admissions read before a call charged by its outcome). */
	@Configuration(proxyBeanMethods = false)
	static class ObservedOutcomes {

		final List<String> outcomes = new CopyOnWriteArrayList<>();

		@Bean
		ObservationHandler<RateLimitObservationContext> outcomesObserved() {
			return new ObservationHandler<>() {

				@Override
				public void onStop(RateLimitObservationContext context) {
					if (context.getOperation() == RateLimitOperation.DECISION) {
						ObservedOutcomes.this.outcomes.add(context.getOutcome());
					}
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return context instanceof RateLimitObservationContext;
				}

			};
		}

	}

	@Test
	void chargeOnStatusOutsideAHandlerStopsStartup() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> new SpringApplicationBuilder(StatusOnServiceApplication.class).run(
					"--spring.main.web-application-type=none", "--spring.data.redis.url=" + TestRedis.shared().url()))
			.satisfies((ex) -> assertThat(RateLimitAutoConfigurationTests.messages(ex)).contains("StatusOnService.call")
				.contains("chargeOnStatus, which applies to HTTP handler methods"));
	}

	@Test
	void aConditionOnTheResultChargesOnlyWhenTrue() throws Exception {
		try (ConfigurableApplicationContext context = start("none")) {
			Logins logins = context.getBean(Logins.class);
			for (int i = 0; i < 10; i++) {
				assertThat(logins.check("carol", true)).isEqualTo("accepted");
			}
			for (int i = 0; i < 3; i++) {
				assertThat(logins.check("carol", false)).isEqualTo("rejected");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> logins.check("carol", true));
		}
	}

	@Test
	void concurrentFailuresOvershootByNoMoreThanTheCallsInFlight() throws Exception {
		int inFlight = 10;
		try (ConfigurableApplicationContext context = start("none")) {
			Logins logins = context.getBean(Logins.class);
			String user = "dave-" + UUID.randomUUID();
			logins.holdUntil(new CountDownLatch(inFlight));
			ExecutorService threads = Executors.newFixedThreadPool(inFlight);
			try {
				List<Future<String>> calls = new ArrayList<>();
				for (int i = 0; i < inFlight; i++) {
					calls.add(threads.submit(() -> logins.slowLogin(user)));
				}
				int admitted = 0;
				for (Future<String> call : calls) {
					try {
						call.get(60, TimeUnit.SECONDS);
					}
					catch (ExecutionException ex) {
						if (ex.getCause() instanceof BadCredentials) {
							admitted++;
						}
					}
				}
				// every call read the room before any was charged: all ran, 5 beyond the limit, fewer than in flight
				assertThat(admitted).isEqualTo(inFlight).isLessThanOrEqualTo(LIMIT + inFlight);
			}
			finally {
				threads.shutdownNow();
			}
			logins.holdUntil(null);
			// the charges stopped at the limit: the next failure is refused
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> logins.slowLogin(user));
		}
	}

	@ParameterizedTest
	@CsvSource({ "servlet, /login, http-login", "reactive, /reactive, reactive-login-http" })
	void aHandlerIsChargedByItsResponseStatusWithTheFieldsAfterTheCharge(String webApplicationType, String path,
			String limit) throws Exception {
		try (ConfigurableApplicationContext context = start(webApplicationType)) {
			String uri = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort() + path;
			HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
			for (int i = 0; i < 10; i++) {
				HttpResponse<String> ok = post(http, uri, "erin", "right");
				assertThat(ok.statusCode()).isEqualTo(200);
				assertThat(ok.headers().firstValue("RateLimit")).contains("\"" + limit + "\";r=5;t=0");
			}
			for (int i = 1; i <= LIMIT; i++) {
				HttpResponse<String> failed = post(http, uri, "erin", "wrong");
				assertThat(failed.statusCode()).isEqualTo(401);
				// the state after this attempt's charge
				assertThat(failed.headers().firstValue("RateLimit").orElseThrow())
					.startsWith("\"" + limit + "\";r=" + (LIMIT - i) + ";");
			}
			HttpResponse<String> refused = post(http, uri, "erin", "right");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		}
	}

	@Test
	void chargingByOutcomeAMethodWhoseResultComesLaterStopsStartup() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> new SpringApplicationBuilder(LaterApplication.class).run("--spring.main.web-application-type=none",
					"--spring.data.redis.url=" + TestRedis.shared().url()))
			.satisfies((ex) -> assertThat(RateLimitAutoConfigurationTests.messages(ex)).contains("Later.login")
				.contains("charges by outcome")
				.contains("CompletableFuture"));
	}

	private static HttpResponse<String> post(HttpClient http, String uri, String user, String password)
			throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create(uri + "?username=" + user + "&password=" + password))
			.POST(HttpRequest.BodyPublishers.noBody())
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext start(String webApplicationType) {
		return new SpringApplicationBuilder(OutcomeApplication.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--spring.main.web-application-type=" + webApplicationType,
				"--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=outcome-" + UUID.randomUUID() + ":", "--ratelimit.redis.timeout=30s");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Logins.class, LoginController.class, ReactiveLoginController.class })
	static class OutcomeApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Later.class)
	static class LaterApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(StatusOnService.class)
	static class StatusOnServiceApplication {

	}

	@Service
	static class StatusOnService {

		@RateLimited(name = "status-on-service", limit = LIMIT, window = "1h", chargeOnStatus = 401)
		String call() {
			return "called";
		}

	}

	static class BadCredentials extends RuntimeException {

		BadCredentials() {
			super("bad credentials");
		}

	}

	@Service
	@ConditionalOnNotWebApplication
	static class Logins {

		private final java.util.Map<String, Integer> attempts = new java.util.concurrent.ConcurrentHashMap<>();

		private volatile CountDownLatch hold;

		@RateLimited(name = "login", algorithm = "sliding-log", limit = LIMIT, window = "1h", key = "#user",
				chargeOn = BadCredentials.class, maxWait = "0")
		String login(String user, String password) {
			this.attempts.merge(user, 1, Integer::sum);
			if (!password.equals("right")) {
				throw new BadCredentials();
			}
			return "welcome " + user;
		}

		@RateLimited(name = "check", algorithm = "fixed-window", limit = 3, window = "1h", key = "#user",
				chargeWhen = "#result == 'rejected'", maxWait = "0")
		String check(String user, boolean accepted) {
			return accepted ? "accepted" : "rejected";
		}

		/** Fails once every call in flight has entered (the latch), so that all read the room before any charge. */
		@RateLimited(name = "slow-login", algorithm = "sliding-log", limit = LIMIT, window = "1h", key = "#user",
				chargeOn = BadCredentials.class, maxWait = "0")
		String slowLogin(String user) throws InterruptedException {
			CountDownLatch latch = this.hold;
			if (latch != null) {
				latch.countDown();
				latch.await(30, TimeUnit.SECONDS);
			}
			throw new BadCredentials();
		}

		void holdUntil(CountDownLatch latch) {
			this.hold = latch;
		}

		@RateLimited(name = "reactive-login", algorithm = "sliding-log", limit = LIMIT, window = "1h", key = "#user",
				chargeOn = BadCredentials.class, maxWait = "0")
		Mono<String> reactiveLogin(String user, String password) {
			return password.equals("right") ? Mono.just("welcome " + user) : Mono.error(new BadCredentials());
		}

		int attempts(String user) {
			return this.attempts.getOrDefault(user, 0);
		}

	}

	@RestController
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	static class LoginController {

		@RateLimited(name = "http-login", algorithm = "sliding-log", limit = LIMIT, window = "1h", key = "#username",
				chargeOnStatus = 401)
		@PostMapping("/login")
		ResponseEntity<String> login(@RequestParam String username, @RequestParam String password) {
			return password.equals("right") ? ResponseEntity.ok("welcome")
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad credentials");
		}

	}

	@RestController
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	static class ReactiveLoginController {

		@RateLimited(name = "reactive-login-http", algorithm = "sliding-log", limit = LIMIT, window = "1h",
				key = "#username", chargeOnStatus = 401)
		@PostMapping("/reactive")
		Mono<ResponseEntity<String>> login(@RequestParam String username, @RequestParam String password) {
			return Mono.just(password.equals("right") ? ResponseEntity.ok("welcome")
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad credentials"));
		}

	}

	@Service
	static class Later {

		@RateLimited(name = "later", limit = LIMIT, window = "1h", chargeOn = BadCredentials.class)
		CompletableFuture<String> login(String user) {
			return CompletableFuture.completedFuture(user);
		}

	}

}
