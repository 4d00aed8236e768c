package dev.ratelimit.spring.autoconfigure.aot;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitRuntimeHints}: what a native image of an application with the starter is told, checked with
 * Spring's {@link RuntimeHintsPredicates}. What Spring and Boot register themselves for the starter (the limited beans,
 * their proxies, the properties) is checked by {@code AheadOfTimeIntegrationTests}, on a processed context.
 */
class RateLimitRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	RateLimitRuntimeHintsTests() {
		new RateLimitRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void isRegisteredForAheadOfTimeProcessing() {
		assertThat(AotServices.factories(getClass().getClassLoader()).load(RuntimeHintsRegistrar.class).asList())
			.hasAtLeastOneElementOfType(RateLimitRuntimeHints.class);
	}

	@Test
	void everyLuaScriptIsAResource() throws IOException {
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + RateLimitRuntimeHints.SCRIPTS);
		List<String> names = Arrays.stream(scripts).map(Resource::getFilename).toList();
		assertThat(names).as("the scripts LuaScript joins").contains("common.lua", "rate_limit.lua", "peek.lua",
				"reset.lua", "token_bucket.lua", "sliding_log.lua");
		for (String name : names) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/core/scripts/" + name)).as(name)
				.accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/ratelimit/core/other.txt")).rejects(this.hints);
	}

	@Test
	void keyExpressionsCanCallTheRequestsThePrincipalsAndTheExchangesMethods() {
		for (Class<?> root : List.of(HttpServletRequest.class, ServerHttpRequest.class, ServerWebExchange.class,
				java.security.Principal.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(root)
				.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as(root.getName()).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("org.apache.catalina.connector.RequestFacade"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as("Tomcat's request").accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("org.springframework.http.server.reactive.ReactorServerHttpRequest"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as("Reactor Netty's request")
			.accepts(this.hints);
	}

	@Test
	void theAnnotationIsReadAndSynthesized() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimited.class, "limit"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(RateLimited.class)).accepts(this.hints);
	}

	@Test
	void theEndpointsBodiesThatBootCannotSeeAreBound() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.ClientState.class, "states"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.State.class, "remaining"))
			.as("and what they hold")
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.Reset.class, "deleted"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.UsagePage.class, "entries"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.ClientUnits.class, "units"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimitsEndpoint.Error.class, "error"))
			.accepts(this.hints);
	}

}
