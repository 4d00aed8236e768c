package dev.ratelimit.spring.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.test.TestRedis;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A filter rule with {@code charge-on-status} on a real server, a real Redis and Spring Security's HTTP Basic, on
 * Spring MVC and WebFlux: the rule runs before Security and counts only the requests Security answers with 401, so
 * that correct logins never lock a client out and failed ones do; an async answer is charged when it completes.
 * Security is configured as Boot configures it (its filter chain at order -100), without Boot's auto-configuration of
 * it, which would secure every other test's server.
 */
@ExtendWith(NoBlocking.class)
class ChargeOnStatusRulesIntegrationTests {

	private static final int LIMIT = 5;

	/** Users looked up by Spring Security: the passwords it checked. */
	private static final AtomicInteger lookups = new AtomicInteger();

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();


	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void correctLoginsAreNeverChargedAndFailedOnesAre(String stack) throws Exception {
		try (ConfigurableApplicationContext context = start(stack)) {
			Admin admin = context.getBean(Admin.class);
			String client = address();
			// more correct logins than the limit: none is charged
			for (int i = 0; i < 2 * LIMIT; i++) {
				assertThat(get(context, "/admin/report", client, "secret").statusCode()).isEqualTo(200);
			}
			for (int i = 1; i <= LIMIT; i++) {
				HttpResponse<String> failed = get(context, "/admin/report", client, "guess" + i);
				assertThat(failed.statusCode()).isEqualTo(401);
			}
			// the limit is spent on failures: even the right password is refused, before Security checks it
			HttpResponse<String> refused = get(context, "/admin/report", client, "secret");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After")).isPresent();
			assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"admin-logins\";r=0;");
			assertThat(admin.reports.get()).isEqualTo(2 * LIMIT);
			// another client has a budget of its own
			assertThat(get(context, "/admin/report", address(), "secret").statusCode()).isEqualTo(200);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void aResponseCarriesTheStateReadAtItsAdmissionBeforeItsCharge(String stack) throws Exception {
		try (ConfigurableApplicationContext context = start(stack)) {
			String client = address();
			HttpResponse<String> ok = get(context, "/admin/report", client, "secret");
			assertThat(ok.headers().firstValue("RateLimit")).contains("\"admin-logins\";r=5;t=0");
			for (int remaining = LIMIT; remaining > 0; remaining--) {
				HttpResponse<String> failed = get(context, "/admin/report", client, "wrong");
				assertThat(failed.statusCode()).isEqualTo(401);
				// Security's 401 is committed before the charge: the fields were set before it answered
				assertThat(failed.headers().firstValue("RateLimit").orElseThrow())
					.startsWith("\"admin-logins\";r=" + remaining + ";");
				assertThat(failed.headers().firstValue("RateLimit-Policy")).contains("\"admin-logins\";q=5;w=60");
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void anAsyncAnswerIsChargedWhenItCompletesWithItsStatus(String stack) throws Exception {
		try (ConfigurableApplicationContext context = start(stack)) {
			String client = address();
			for (int i = 0; i < 2 * LIMIT; i++) {
				assertThat(get(context, "/guarded/later?status=200", client, null).statusCode()).isEqualTo(200);
			}
			for (int i = 0; i < LIMIT; i++) {
				assertThat(get(context, "/guarded/later?status=401", client, null).statusCode()).isEqualTo(401);
			}
			assertThat(get(context, "/guarded/later?status=200", client, null).statusCode()).isEqualTo(429);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void withReserveConcurrentFailedLoginsAreCheckedExactlyLimitTimes(String stack) throws Exception {
		ExecutorService guessers = Executors.newFixedThreadPool(20);
		try (ConfigurableApplicationContext context = start(stack, "--ratelimit.filter.rules[0].reserve=true")) {
			String client = address();
			// a correct login gives its unit back
			for (int i = 0; i < 2 * LIMIT; i++) {
				assertThat(get(context, "/admin/report", client, "secret").statusCode()).isEqualTo(200);
			}
			lookups.set(0);
			String guesser = address();
			List<CompletableFuture<HttpResponse<String>>> guesses = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				guesses.add(CompletableFuture.supplyAsync(() -> {
					try {
						return get(context, "/admin/report", guesser, "guess");
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}, guessers));
			}
			Map<Integer, Long> statuses = guesses.stream()
				.map(CompletableFuture::join)
				.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
			// each guess reserved its unit before Security checked it: exactly the limit were checked
			assertThat(lookups.get()).isEqualTo(LIMIT);
			assertThat(statuses).containsEntry(401, (long) LIMIT).containsEntry(429, 40L - LIMIT);
		}
		finally {
			guessers.shutdownNow();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "servlet", "reactive" })
	void aRuleWithACostHeaderIsSettledByItsValueWhichNeverReachesTheClient(String stack) throws Exception {
		try (ConfigurableApplicationContext context = start(stack, "--ratelimit.filter.rules[1].name=bytes",
				"--ratelimit.filter.rules[1].paths=/metered/**", "--ratelimit.filter.rules[1].algorithm=token-bucket",
				"--ratelimit.filter.rules[1].limit=1000", "--ratelimit.filter.rules[1].window=1d",
				"--ratelimit.filter.rules[1].cost=100", "--ratelimit.filter.rules[1].settle-cost-header=X-Bytes-Sent")) {
			String client = address();
			// 50 downloads of 10 bytes: each reserved 100 and gave 90 back, or the 11th would have been refused
			for (int i = 0; i < 50; i++) {
				HttpResponse<String> download = get(context, "/metered/download?bytes=10", client, null);
				assertThat(download.statusCode()).as("download %d", i).isEqualTo(200);
				assertThat(download.headers().firstValue("X-Bytes-Sent")).isEmpty();
				assertThat(download.headers().firstValue("RateLimit-Policy")).contains("\"bytes\";q=1000;w=86400");
				if (i < 2) {
					// the fields of the admission, after the provisional 100: 1000 - 100, then 1000 - 10 - 100
					assertThat(download.headers().firstValue("RateLimit").orElseThrow()).as("download %d", i)
						.startsWith("\"bytes\";r=" + ((i == 0) ? 900 : 890) + ";");
				}
			}
			// 500 used: 600 more are admitted on the provisional 100, and leave a debt of 100
			assertThat(get(context, "/metered/download?bytes=600", client, null).statusCode()).isEqualTo(200);
			HttpResponse<String> refused = get(context, "/metered/download?bytes=1", client, null);
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("RateLimit").orElseThrow()).contains("\"bytes\";r=0;");
		}
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path, String client,
			String password) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("X-Forwarded-For", client)
			.timeout(Duration.ofSeconds(30));
		if (password != null) {
			request.header("Authorization", "Basic "
					+ Base64.getEncoder().encodeToString(("admin:" + password).getBytes(StandardCharsets.UTF_8)));
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String address() {
		return "10.9." + (int) (Math.random() * 250) + "." + (int) (Math.random() * 250);
	}

	private static ConfigurableApplicationContext start(String stack, String... more) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.web-application-type=" + stack, "--server.forward-headers-strategy=framework",
				"--spring.data.redis.url=" + TestRedis.shared().url(),
				"--ratelimit.key-prefix=status-rules-" + UUID.randomUUID() + ":", "--ratelimit.redis.timeout=30s",
				"--ratelimit.filter.rules[0].name=admin-logins", "--ratelimit.filter.rules[0].paths=/admin/**,/guarded/**",
				"--ratelimit.filter.rules[0].algorithm=sliding-log", "--ratelimit.filter.rules[0].limit=" + LIMIT,
				"--ratelimit.filter.rules[0].window=1m", "--ratelimit.filter.rules[0].charge-on-status=401"));
		arguments.addAll(List.of(more));
		return new SpringApplicationBuilder(LoginApplication.class).run(arguments.toArray(String[]::new));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Admin.class, ServletSecurity.class, ReactiveSecurity.class })
	static class LoginApplication {

	}

	@RestController
	static class Admin {

		final AtomicInteger reports = new AtomicInteger();

		@GetMapping("/admin/report")
		String report() {
			this.reports.incrementAndGet();
			return "report";
		}

		@GetMapping("/metered/download")
		ResponseEntity<String> download(@RequestParam int bytes) {
			return ResponseEntity.ok().header("X-Bytes-Sent", Integer.toString(bytes)).body("x".repeat(bytes));
		}

		@GetMapping("/guarded/later")
		CompletableFuture<ResponseEntity<String>> later(@RequestParam int status) {
			return CompletableFuture.supplyAsync(() -> ResponseEntity.status(status).body("later"),
					CompletableFuture.delayedExecutor(20, java.util.concurrent.TimeUnit.MILLISECONDS));
		}

	}

	private static UserDetails admin() {
		return User.withUsername("admin").password("{noop}secret").roles("ADMIN").build();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@EnableWebSecurity
	static class ServletSecurity {

		@Bean
		SecurityFilterChain adminChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.requestMatchers("/admin/**")
				.authenticated()
				.anyRequest()
				.permitAll()).httpBasic(Customizer.withDefaults()).csrf((csrf) -> csrf.disable()).build();
		}

		@Bean
		UserDetailsService users() {
			return (username) -> {
				lookups.incrementAndGet();
				return admin();
			};
		}

		/** As Boot registers it: spring.security.filter.order, -100 by default. */
		@Bean
		FilterRegistrationBean<Filter> securityFilterChainRegistration(
				@Qualifier("springSecurityFilterChain") Filter chain) {
			FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(chain);
			registration.setOrder(-100);
			return registration;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@EnableWebFluxSecurity
	static class ReactiveSecurity {

		@Bean
		SecurityWebFilterChain adminChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.pathMatchers("/admin/**")
				.authenticated()
				.anyExchange()
				.permitAll()).httpBasic(Customizer.withDefaults()).csrf((csrf) -> csrf.disable()).build();
		}

		@Bean
		ReactiveUserDetailsService users() {
			return (username) -> Mono.fromSupplier(() -> {
				lookups.incrementAndGet();
				return admin();
			});
		}

	}

}
