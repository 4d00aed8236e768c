package dev.ratelimit.spring.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.autoconfigure.RateLimitAutoConfigurationTests;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Limits that reserve their cost at admission and settle it after the call, on a real Redis: failures counted
 * exactly ({@code reserve}: 100 concurrent failed logins over two instances reach the method exactly {@code limit}
 * times, successful ones give their unit back), and a budget of tokens charged by what each call used
 * ({@code settleCost}: a call using less gives the rest back, the call that crosses the budget completes and the
 * next is denied), for a plain value and a {@code Mono}; and the settings startup refuses.
 */
@ExtendWith(NoBlocking.class)
class ReservedCostIntegrationTests {

	private static final int LIMIT = 5;

	private static final AtomicInteger reached = new AtomicInteger();

	@Test
	void concurrentFailuresOverTwoInstancesReachTheMethodExactlyLimitTimes() throws Exception {
		String prefix = "reserved-" + UUID.randomUUID() + ":";
		reached.set(0);
		try (ConfigurableApplicationContext one = start(prefix); ConfigurableApplicationContext two = start(prefix)) {
			List<Logins> instances = List.of(one.getBean(Logins.class), two.getBean(Logins.class));
			ExecutorService threads = Executors.newFixedThreadPool(50);
			try {
				List<Future<String>> calls = new ArrayList<>();
				for (int i = 0; i < 100; i++) {
					Logins logins = instances.get(i % 2);
					calls.add(threads.submit(() -> logins.login("mallory", "guess")));
				}
				int failed = 0;
				int refused = 0;
				for (Future<String> call : calls) {
					try {
						call.get(60, TimeUnit.SECONDS);
					}
					catch (ExecutionException ex) {
						if (ex.getCause() instanceof BadCredentials) {
							failed++;
						}
						else if (ex.getCause() instanceof RateLimitExceededException) {
							refused++;
						}
					}
				}
				assertThat(reached.get()).isEqualTo(LIMIT);
				assertThat(failed).isEqualTo(LIMIT);
				assertThat(refused).isEqualTo(100 - LIMIT);
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	void aSuccessfulCallGivesItsUnitBack() throws Exception {
		try (ConfigurableApplicationContext context = start("reserved-" + UUID.randomUUID() + ":")) {
			Logins logins = context.getBean(Logins.class);
			for (int i = 0; i < 4 * LIMIT; i++) {
				assertThat(logins.login("alice", "right")).isEqualTo("welcome alice");
			}
			for (int i = 0; i < LIMIT; i++) {
				assertThatExceptionOfType(BadCredentials.class).isThrownBy(() -> logins.login("alice", "wrong"));
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> logins.login("alice", "right"));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "token-bucket", "fixed-window", "sliding-window-counter", "sliding-log" })
	void aBudgetOfTokensIsChargedByWhatEachCallUsed(String algorithm) throws Exception {
		try (ConfigurableApplicationContext context = start("tokens-" + UUID.randomUUID() + ":",
				"--budget.algorithm=" + algorithm)) {
			Completions completions = context.getBean(Completions.class);
			// 50 calls of 10 tokens: each reserved 100 and gave 90 back, or the 11th would have been refused
			for (int i = 0; i < 50; i++) {
				assertThat(completions.complete("acme", 10).tokens()).isEqualTo(10);
			}
			// 500 used: a call of 600 is admitted on its provisional 100, completes, and leaves a debt of 100
			assertThat(completions.complete("acme", 600).tokens()).isEqualTo(600);
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> completions.complete("acme", 1));
			// another customer has a budget of its own
			assertThat(completions.complete("globex", 1).tokens()).isEqualTo(1);
		}
	}

	@Test
	void aMonosCostIsSettledByItsValue() throws Exception {
		try (ConfigurableApplicationContext context = start("tokens-" + UUID.randomUUID() + ":")) {
			Completions completions = context.getBean(Completions.class);
			for (int i = 0; i < 50; i++) {
				assertThat(completions.completeLater("initech", 10).block(Duration.ofSeconds(30)).tokens()).isEqualTo(10);
			}
			assertThat(completions.completeLater("initech", 600).block(Duration.ofSeconds(30)).tokens()).isEqualTo(600);
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> completions.completeLater("initech", 1).block(Duration.ofSeconds(30)));
		}
	}

	@Test
	void aCallThatThrowsKeepsItsProvisionalCost() throws Exception {
		try (ConfigurableApplicationContext context = start("tokens-" + UUID.randomUUID() + ":")) {
			Completions completions = context.getBean(Completions.class);
			for (int i = 0; i < 10; i++) {
				assertThatExceptionOfType(IllegalStateException.class)
					.isThrownBy(() -> completions.complete("hooli", -1));
			}
			// ten failed calls kept 100 each: the budget of 1,000 is spent
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> completions.complete("hooli", 1));
		}
	}

	@Test
	void reserveWithoutAChargeConditionAndSettleCostWithOneStopStartup() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> new SpringApplicationBuilder(ReserveAloneApplication.class)
				.run("--spring.main.web-application-type=none", "--spring.data.redis.url=" + TestRedis.shared().url()))
			.satisfies((ex) -> assertThat(RateLimitAutoConfigurationTests.messages(ex)).contains("ReserveAlone.call")
				.contains("reserve applies to a limit charged by outcome"));
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> new SpringApplicationBuilder(SettleAndChargeApplication.class)
				.run("--spring.main.web-application-type=none", "--spring.data.redis.url=" + TestRedis.shared().url()))
			.satisfies((ex) -> assertThat(RateLimitAutoConfigurationTests.messages(ex)).contains("SettleAndCharge.call")
				.contains("settleCost settles what every call really cost"));
	}

	private static ConfigurableApplicationContext start(String prefix, String... more) {
		List<String> arguments = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				"--ratelimit.redis.timeout=30s"));
		arguments.addAll(List.of(more));
		return new SpringApplicationBuilder(ReservedApplication.class).run(arguments.toArray(String[]::new));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Logins.class, Completions.class })
	static class ReservedApplication {

	}

	static class BadCredentials extends RuntimeException {

		BadCredentials() {
			super("bad credentials");
		}

	}

	@Service
	static class Logins {

		@RateLimited(name = "exact-login", algorithm = "sliding-log", limit = LIMIT, window = "1h", key = "#user",
				chargeOn = BadCredentials.class, reserve = true, maxWait = "0")
		String login(String user, String password) {
			if (!password.equals("right")) {
				reached.incrementAndGet();
				throw new BadCredentials();
			}
			return "welcome " + user;
		}

	}

	record Completion(long tokens) {
	}

	@Service
	static class Completions {

		@RateLimited(name = "tokens", algorithm = "${budget.algorithm:token-bucket}", limit = 1000, window = "1d",
				cost = 100, key = "#customer", settleCost = "#result.tokens()", maxWait = "0")
		Completion complete(String customer, long tokens) {
			if (tokens < 0) {
				throw new IllegalStateException("the model failed");
			}
			return new Completion(tokens);
		}

		@RateLimited(name = "tokens-later", limit = 1000, window = "1d", cost = 100, key = "#customer",
				settleCost = "#result.tokens()", maxWait = "0")
		Mono<Completion> completeLater(String customer, long tokens) {
			return Mono.fromSupplier(() -> new Completion(tokens));
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ReserveAlone.class)
	static class ReserveAloneApplication {

	}

	@Service
	static class ReserveAlone {

		@RateLimited(name = "reserve-alone", limit = 5, window = "1h", reserve = true)
		String call() {
			return "called";
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(SettleAndCharge.class)
	static class SettleAndChargeApplication {

	}

	@Service
	static class SettleAndCharge {

		@RateLimited(name = "settle-and-charge", limit = 5, window = "1h", settleCost = "#result.length()",
				chargeWhen = "#result != null")
		String call() {
			return "called";
		}

	}

}
