package dev.ratelimit.spring.autoconfigure;

import java.util.concurrent.Flow;

import dev.ratelimit.core.redis.Timeouts;import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.aop.RateLimitedAdvisor;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.web.reactive.RateLimitWebFilter;
import org.junit.jupiter.api.Test;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitWebFluxAutoConfiguration}: what a reactive application gets, and which annotations
 * WebFlux could not apply, so that startup stops with a message naming the method instead of leaving it unlimited.
 * On a Redis where nothing listens ({@link WithoutRedis}): no test here needs or waits for a Redis.
 */
class RateLimitWebFluxAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class, WebFluxAutoConfiguration.class))
		// No Redis: the conditions are decided without one (WithoutRedis).
		.withPropertyValues("spring.data.redis.url=" + WithoutRedis.URL);

	@Test
	void reactiveApplicationGetsTheWebFilterAndTheAdvisorAndNoServletFilter() {
		this.contextRunner.withUserConfiguration(MonoController.class, PlainHandlerController.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(RateLimitEnforcer.class);
				assertThat(context).hasSingleBean(RateLimitWebFilter.class);
				assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
				assertThat(context).hasSingleBean(RateLimitedMethodRegistry.class);
				assertThat(context).hasSingleBean(Timeouts.class);
				assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
				assertThat(AopUtils.isAopProxy(context.getBean(MonoController.class))).isTrue();
			});
	}

	@Test
	void filterRulesStayOffWhenDisabledButTheWebFilterStaysForAnnotations() {
		this.contextRunner.withPropertyValues("ratelimit.filter.enabled=false", "ratelimit.filter.rules[0].paths=nope")
			.run((context) -> {
				// The rule would fail its check (no leading '/'): disabled rules are not read.
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(RateLimitWebFilter.class);
			});
	}

	@Test
	void webFilterTakesTheConfiguredOrder() {
		this.contextRunner.withPropertyValues("ratelimit.filter.order=-42")
			.run((context) -> assertThat(context.getBean(RateLimitWebFilter.class).getOrder()).isEqualTo(-42));
	}

	@Test
	void plainValueMethodOutsideAHandlerStopsStartup() {
		this.contextRunner.withUserConfiguration(PlainService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.contains("@RateLimited on " + PlainService.class.getName() + ".call would not be applied")
				.contains("returns String")
				.contains("return a Mono or Flux");
		});
	}

	@Test
	void anotherLibrarysReactiveTypeOutsideAHandlerStopsStartup() {
		// its subscriber carries no Reactor context, so its call could not be tied to its request
		this.contextRunner.withUserConfiguration(FlowService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.contains("@RateLimited on " + FlowService.class.getName() + ".call would not be applied")
				.contains("returns Publisher")
				.contains("return a Mono or Flux");
		});
	}

	@Test
	void plainValueHandlerKeyedByItsArgumentsStopsStartup() {
		this.contextRunner.withUserConfiguration(ArgumentKeyedPlainHandlerController.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.contains(ArgumentKeyedPlainHandlerController.class.getName() + ".byId")
				.contains("'#id'")
				.contains("decided before it runs");
		});
	}

	@Test
	void monoAndFluxServicesAreAccepted() {
		this.contextRunner.withUserConfiguration(ReactiveService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(AopUtils.isAopProxy(context.getBean(ReactiveService.class))).isTrue();
		});
	}

	@Test
	void withoutAutoProxyingStartupStopsInsteadOfGoingUnlimited() {
		this.contextRunner.withPropertyValues("spring.aop.auto=false")
			.withUserConfiguration(MonoController.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains("MonoController")
					.contains("would not be applied");
			});
	}

	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		return messages.toString();
	}

	@RestController
	static class MonoController {

		@GetMapping("/mono/{id}")
		@RateLimited(limit = 2, window = "1m", key = "#id")
		public Mono<String> byId(@PathVariable String id) {
			return Mono.just(id);
		}

	}

	@RestController
	static class PlainHandlerController {

		@GetMapping("/plain")
		@RateLimited(limit = 2, window = "1m", key = "#request.getHeaders().getFirst('X-Api-Key')")
		public String plain() {
			return "plain";
		}

	}

	@RestController
	static class ArgumentKeyedPlainHandlerController {

		@GetMapping("/plain/{id}")
		@RateLimited(limit = 2, window = "1m", key = "#id")
		public String byId(@PathVariable String id) {
			return id;
		}

	}

	@Service
	static class PlainService {

		@RateLimited(limit = 2, window = "1m")
		public String call() {
			return "called";
		}

	}

	@Service
	static class FlowService {

		@RateLimited(limit = 2, window = "1m")
		public Flow.Publisher<String> call() {
			return JdkFlowAdapter.publisherToFlowPublisher(Mono.just("called"));
		}

	}

	@Service
	static class ReactiveService {

		@RateLimited(limit = 2, window = "1m", key = "#account")
		public Mono<String> call(String account) {
			return Mono.just(account);
		}

		@RateLimited(limit = 2, window = "1m", key = "#account")
		public Flux<String> stream(String account) {
			return Flux.just(account);
		}

	}

}
