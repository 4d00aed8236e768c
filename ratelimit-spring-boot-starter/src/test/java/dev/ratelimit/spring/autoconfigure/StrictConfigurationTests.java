package dev.ratelimit.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key under {@code ratelimit.} that names no property stops startup naming it: a typo inside a rule would
 * otherwise leave the rule on the defaults without a word. The in-memory store keeps these tests free of Redis.
 */
class StrictConfigurationTests {

	private static final String[] RULE = { "ratelimit.filter.rules[0].name=reports",
			"ratelimit.filter.rules[0].paths=/reports/**", "ratelimit.filter.rules[0].limit=5" };

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(StarterAutoConfigurations.all())
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=in-memory");

	@Test
	void typoInsideARuleStopsStartupNamingIt() {
		assertUnbound(List.of("ratelimit.filter.rules[0].limt"), append(RULE, "ratelimit.filter.rules[0].limt=10"));
	}

	@Test
	void typosInEveryGroupStopStartupNamingEachOfThem() {
		assertUnbound(List.of("ratelimit.limt", "ratelimit.defaults.algoritm", "ratelimit.redis.timout",
				"ratelimit.fail-local.instance", "ratelimit.filter.rule[0].paths"), "ratelimit.limt=5",
				"ratelimit.defaults.algoritm=sliding-log", "ratelimit.redis.timout=1s", "ratelimit.fail-local.instance=2",
				"ratelimit.filter.rule[0].paths=/x");
	}

	@Test
	void everyDocumentedGroupStillBinds() {
		this.contextRunner.withPropertyValues(RULE)
			.withPropertyValues("ratelimit.enabled=true", "ratelimit.key-prefix=app:", "ratelimit.header-style=legacy",
					"ratelimit.missing-key=reject", "ratelimit.defaults.algorithm=sliding-log", "ratelimit.defaults.limit=7",
					"ratelimit.defaults.window=2s", "ratelimit.defaults.cost=1", "ratelimit.defaults.failure-policy=fail-closed",
					"ratelimit.redis.timeout=1s", "ratelimit.redis.connect-timeout=3s", "ratelimit.redis.client=auto",
					"ratelimit.redis.url=redis://localhost:1", "ratelimit.redis.sentinel.master=m",
					"ratelimit.redis.cluster.nodes=localhost:1", "ratelimit.redis.jedis-pool-size=4",
					"ratelimit.redis.unavailable-retry-after=2s", "ratelimit.redis.failure-log-interval=5s",
					"ratelimit.fail-local.instances=2", "ratelimit.fail-local.probe-interval=2s", "ratelimit.metrics.near-limit-ratio=0.9",
					"ratelimit.filter.enabled=true", "ratelimit.filter.order=5", "ratelimit.filter.rules[0].methods=GET",
					"ratelimit.filter.rules[0].algorithm=token-bucket", "ratelimit.filter.rules[0].window=1m",
					"ratelimit.filter.rules[0].capacity=8", "ratelimit.filter.rules[0].cost=2",
					"ratelimit.filter.rules[0].key=#request.remoteAddr", "ratelimit.filter.rules[0].failure-policy=fail-open")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aDisabledStarterReadsNothingOfItsOwn() {
		this.contextRunner.withPropertyValues("ratelimit.enabled=false", "ratelimit.limt=5")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitEnforcer.class));
	}

	private void assertUnbound(List<String> expected, String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			List<String> unbound = new ArrayList<>();
			for (Throwable ex = context.getStartupFailure(); ex != null; ex = ex.getCause()) {
				if (ex instanceof UnboundConfigurationPropertiesException unboundProperties) {
					unboundProperties.getUnboundProperties()
						.stream()
						.map(ConfigurationProperty::getName)
						.forEach((name) -> unbound.add(name.toString()));
				}
			}
			assertThat(unbound).as(RateLimitAutoConfigurationTests.messages(context.getStartupFailure()))
				.containsExactlyInAnyOrderElementsOf(expected);
		});
	}

	private static String[] append(String[] first, String... more) {
		String[] all = new String[first.length + more.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(more, 0, all, first.length, more.length);
		return all;
	}

}
