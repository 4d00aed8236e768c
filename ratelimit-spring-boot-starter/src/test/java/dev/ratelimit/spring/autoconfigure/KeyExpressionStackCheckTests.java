package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.RateLimited;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key expression that cannot work on the application's stack (a method {@code #request} does not have there)
 * stops startup naming the property or the method, as other configuration mistakes do, instead of failing on every
 * request and keying every client by its address; and the key helpers are checked: a helper read without calling it,
 * a misspelt one, the wrong number of arguments, {@code #principalName()} where no principal is known yet.
 */
class KeyExpressionStackCheckTests {

	private final ReactiveWebApplicationContextRunner webFlux = new ReactiveWebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
				WebFluxAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + WithoutRedis.URL);

	private final WebApplicationContextRunner mvc = WithoutRedis.servlet();

	@Test
	void theReadmesServletKeyInAWebFluxRuleStopsStartupNamingTheRuleAndTheHelper() {
		this.webFlux.withPropertyValues(rule("#request.getHeader('X-Api-Key')")).run(fails(
				"ratelimit.filter.rules[0].key", "on Spring WebFlux #request is a ServerHttpRequest",
				"no method getHeader of 1 argument", "#header('X-Api-Key')"));
	}

	@Test
	void aServletKeyOnAWebFluxHandlersAnnotationStopsStartupNamingTheMethod() {
		this.webFlux.withUserConfiguration(ServletKeyedController.class).run(fails(
				ServletKeyedController.class.getName() + ".orders", "#request is a ServerHttpRequest"));
	}

	@Test
	void aMethodsParameterNamedRequestIsNotCheckedAgainstTheStacksRequest() {
		this.webFlux.withUserConfiguration(OrderService.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void webFluxsOwnExpressionsAndTheHelpersStart() {
		this.webFlux.withPropertyValues(rule("#request.getHeaders().getFirst('X-Api-Key') ?: #header('X-Key')"))
			.withPropertyValues(rule(1, "#request.remoteAddress?.hostString + #queryParam('tenant') + #clientIp()"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aWebFluxKeyInAServletRuleStopsStartup() {
		this.mvc.withPropertyValues(rule("#request.getHeaders().getFirst('X-Api-Key')")).run(fails(
				"ratelimit.filter.rules[0].key", "on Spring MVC #request is a HttpServletRequest",
				"no method getHeaders of 0 arguments"));
	}

	@Test
	void theServletExpressionsAndTheHelpersStartOnSpringMvc() {
		this.mvc.withPropertyValues(rule("#request.getHeader('X-Api-Key') ?: #header('X-Key')"))
			.withPropertyValues(rule(1, "#request.remoteAddr + #queryParam('tenant') + #principalName()"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aHelperReadWithoutBeingCalledStopsStartup() {
		this.mvc.withPropertyValues(rule("#clientIp")).run(fails("ratelimit.filter.rules[0].key",
				"#clientIp is a key helper, to call: #clientIp()"));
	}

	@Test
	void aMisspeltHelperStopsStartup() {
		this.mvc.withPropertyValues(rule("#headr('X-Api-Key')")).run(fails("ratelimit.filter.rules[0].key",
				"#headr(), which is not a key helper", "#header('name')"));
	}

	@Test
	void aHelperWithoutItsArgumentStopsStartup() {
		this.webFlux.withPropertyValues(rule("#header()")).run(fails("ratelimit.filter.rules[0].key",
				"calls #header with 0 arguments; it takes 1"));
	}

	@Test
	void thePrincipalsNameBeforeSpringSecurityStopsStartup() {
		this.mvc.withPropertyValues(rule("#principalName()"))
			.withPropertyValues("ratelimit.filter.rules[0].charge-on-status=401")
			.run(fails("ratelimit.filter.rules[0].key", "before Spring Security authenticates"));
	}

	private static String[] rule(String key) {
		return rule(0, key);
	}

	private static String[] rule(int index, String key) {
		String rule = "ratelimit.filter.rules[" + index + "].";
		return new String[] { rule + "name=rule-" + index, rule + "paths=/api/" + index + "/**", rule + "limit=10",
				rule + "window=1m", rule + "key=" + key };
	}

	private static <C extends ConfigurableApplicationContext, A extends ApplicationContextAssertProvider<C>> ContextConsumer<A> fails(
			String... parts) {
		return (context) -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage()).append('\n');
			}
			assertThat(messages.toString()).contains(parts);
		};
	}

	record Order(String customer) {
	}

	static class OrderService {

		@RateLimited(name = "orders", limit = 10, window = "1m", key = "#request.customer")
		Mono<String> place(Order request) {
			return Mono.just(request.customer());
		}

	}

	@RestController
	static class ServletKeyedController {

		@GetMapping("/orders")
		@RateLimited(name = "orders", limit = 10, window = "1m", key = "#request.getHeader('X-Api-Key')")
		Mono<String> orders() {
			return Mono.just("orders");
		}

	}

}
