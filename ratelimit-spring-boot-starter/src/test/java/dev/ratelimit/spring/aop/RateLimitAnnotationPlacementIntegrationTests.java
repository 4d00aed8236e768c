package dev.ratelimit.spring.aop;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * Where annotations sit and how they combine: on a class, on an interface, twice with one name, and behind an
 * application's catch-all exception handler. Each test is a client of its own (its own IP address).
 */
@SpringBootTest(classes = RateLimitAnnotationPlacementIntegrationTests.PlacementApplication.class,
		properties = { "ratelimit.key-prefix=http-placement:", "ratelimit.filter.rules[0].name=shared",
				"ratelimit.filter.rules[0].paths=/placement/rules/**", "ratelimit.filter.rules[0].limit=3",
				"ratelimit.filter.rules[1].name=shared", "ratelimit.filter.rules[1].paths=/placement/rules/both",
				"ratelimit.filter.rules[1].limit=3", "ratelimit.filter.rules[2].paths=/placement/users/{id}/orders",
				"ratelimit.filter.rules[2].limit=2" })
@AutoConfigureMockMvc
class RateLimitAnnotationPlacementIntegrationTests {

	@Autowired
	private MockMvc mvc;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

	@Test
	void classLimitChargesTheHandlerOnlyNotItsBinderOrModelMethods() throws Exception {
		MockHttpServletResponse response = call("/placement/class", "10.5.0.1");
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeader("RateLimit")).isEqualTo("\"per-class\";r=9;t=6");
	}

	@Test
	void classLimitAppliesToPackagePrivateHandlers() throws Exception {
		assertThat(call("/placement/class/package-private", "10.5.0.8").getHeader("RateLimit")).isEqualTo("\"per-class\";r=9;t=6");
	}

	@Test
	void apiKeyEqualToAnotherClientsAddressDoesNotSpendThatAddressBudget() throws Exception {
		for (int i = 0; i < 2; i++) {
			assertThat(this.mvc.perform(get("/placement/keyed").header("X-Api-Key", "10.5.0.9").with((request) -> {
				request.setRemoteAddr("10.5.0.10");
				return request;
			})).andReturn().getResponse().getStatus()).isEqualTo(200);
		}
		// The client at 10.5.0.9, without a key, is limited by its address: its own budget, still full.
		assertThat(call("/placement/keyed", "10.5.0.9").getHeader("RateLimit")).startsWith("\"keyed\";r=1;");
	}

	@Test
	void classAndMethodLimitWithOneNameAreOneBudgetChargedOnce() throws Exception {
		// Both take 1 from the one "per-class" bucket of 10: 2 per request.
		MockHttpServletResponse response = call("/placement/class/same-name", "10.5.0.2");
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeaders("RateLimit")).containsExactly("\"per-class\";r=8;t=6");
	}

	@Test
	void twoIdenticalAnnotationsTakeTwiceTheCost() throws Exception {
		assertThat(call("/placement/class/twice", "10.5.0.7").getHeaders("RateLimit")).containsExactly("\"per-class\";r=7;t=6");
	}

	@Test
	void annotationOnAnInterfaceMethodIsEnforced() throws Exception {
		assertThat(call("/placement/interface", "10.5.0.3").getHeader("RateLimit")).isEqualTo("\"from-interface\";r=0;t=60");
		assertThat(call("/placement/interface", "10.5.0.3").getStatus()).isEqualTo(429);
	}

	@Test
	void twoRulesWithOneNameMatchingOneRequestTakeBothCostsFromOneBudget() throws Exception {
		MockHttpServletResponse first = call("/placement/rules/both", "10.5.0.4");
		assertThat(first.getStatus()).isEqualTo(200);
		assertThat(first.getHeader("RateLimit")).startsWith("\"shared\";r=1;");
		assertThat(call("/placement/rules/both", "10.5.0.4").getStatus()).isEqualTo(429);
		assertThat(call("/placement/rules/one", "10.5.0.4").getStatus()).isEqualTo(200);
	}

	@Test
	void ruleWithAPathVariableIsNamedAfterItsPattern() throws Exception {
		MockHttpServletResponse response = call("/placement/users/42/orders", "10.5.0.5");
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeader("RateLimit-Policy")).isEqualTo("\"/placement/users/*/orders\";q=2;w=60");
	}

	@Test
	void catchAllExceptionHandlerOfTheApplicationDoesNotTurnADenialIntoA500() throws Exception {
		call("/placement/interface", "10.5.0.6");
		MockHttpServletResponse denied = call("/placement/interface", "10.5.0.6");
		assertThat(denied.getStatus()).isEqualTo(429);
		// the limit's whole minute, less what passed since the first call (seconds, rounded up; 2 s were seen to pass
		// between the two calls on a loaded machine): the denial's own answer, not the advice's
		assertThat(denied.getHeader("Retry-After")).satisfies((retryAfter) -> assertThat(Integer.parseInt(retryAfter))
			.isBetween(50, 60));
		assertThat(denied.getContentType()).isEqualTo("application/problem+json");
	}

	private MockHttpServletResponse call(String path, String client) throws Exception {
		return this.mvc.perform(get(path).with((request) -> {
			request.setRemoteAddr(client);
			return request;
		})).andReturn().getResponse();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ ClassLimitedController.class, InterfaceLimitedController.class, RulesController.class,
			KeyedController.class, CatchAllAdvice.class })
	static class PlacementApplication {

	}

	@RestController
	@RateLimited(name = "per-class", limit = 10, window = "1m")
	static class ClassLimitedController {

		@InitBinder
		public void initBinder(WebDataBinder binder) {
		}

		@ModelAttribute("greeting")
		public String greeting() {
			return "hello";
		}

		@GetMapping("/placement/class")
		public String handler() {
			return "class";
		}

		@GetMapping("/placement/class/package-private")
		String packagePrivate() {
			return "package-private";
		}

		@RateLimited(name = "per-class", limit = 10, window = "1m")
		@RateLimited(name = "per-class", limit = 10, window = "1m")
		@GetMapping("/placement/class/twice")
		public String twice() {
			return "twice";
		}

		@RateLimited(name = "per-class", limit = 10, window = "1m")
		@GetMapping("/placement/class/same-name")
		public String sameName() {
			return "same-name";
		}

	}

	/** As an OpenAPI generator writes it: the mapping and the limit on the interface. */
	interface LimitedApi {

		@RateLimited(name = "from-interface", limit = 1, window = "1m")
		@GetMapping("/placement/interface")
		String limited();

	}

	@RestController
	static class InterfaceLimitedController implements LimitedApi {

		@Override
		public String limited() {
			return "interface";
		}

	}

	@RestController
	static class KeyedController {

		@RateLimited(name = "keyed", limit = 2, window = "1m", key = "#request.getHeader('X-Api-Key')")
		@GetMapping("/placement/keyed")
		String keyed() {
			return "keyed";
		}

	}

	@RestController
	static class RulesController {

		@GetMapping({ "/placement/rules/both", "/placement/rules/one", "/placement/users/{id}/orders" })
		public String rules() {
			return "rules";
		}

	}

	/** An application's catch-all, without {@code @Order}, as many have. */
	@RestControllerAdvice
	static class CatchAllAdvice {

		@ExceptionHandler(Exception.class)
		ResponseEntity<String> anything(Exception ex) {
			return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body("oops " + ex.getClass().getSimpleName());
		}

	}

}
