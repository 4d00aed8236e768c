package dev.ratelimit.spring.autoconfigure.aot;

import java.util.List;

import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What a native image needs to know of the starter and that no other part of Spring registers: what the starter
 * reads as resources or reaches by reflection. Registered in {@code META-INF/spring/aot.factories}, so it applies
 * to every application with the starter that is processed ahead of time.
 *
 * <p>
 * Covered elsewhere, and not repeated here: {@code RateLimitProperties} (Spring Boot registers the binding of every
 * {@code @ConfigurationProperties} bean); the {@code @RateLimited} beans' methods ({@code @RateLimited} is
 * {@code @Reflective}, see {@code RateLimitedReflectiveProcessor}); the CGLIB proxies of those beans (Spring
 * generates their classes when processing, with their hints); the exception handler ({@code @ExceptionHandler} is
 * {@code @Reflective}); the {@code ratelimits} endpoint's operations and the body of {@code GET /actuator/ratelimits}
 * ({@code @Endpoint} and its operations are {@code @Reflective}); the entries of {@code META-INF/spring.factories}
 * (Spring registers them); Lettuce (it ships its own native-image configuration).
 */
class RateLimitRuntimeHints implements RuntimeHintsRegistrar {

	/** The Lua scripts that {@code dev.ratelimit.core.LuaScript} reads from the class path when it is loaded. */
	static final String SCRIPTS = "dev/ratelimit/core/scripts/*.lua";

	/**
	 * What key expressions ({@code key = "#request.getHeader('X-Api-Key')"}, {@code #principal?.name},
	 * {@code #exchange...}) call methods on: SpEL finds a method among the public methods of the object's own class,
	 * so the classes the servers, WebFlux and Spring Security hand over are listed with their interfaces. Registered
	 * where present.
	 */
	static final List<String> EXPRESSION_ROOTS = List.of(
			// #request on Spring MVC: Tomcat's request, behind the servlet wrappers Spring Security may put around it
			"jakarta.servlet.ServletRequest", "jakarta.servlet.http.HttpServletRequest",
			"jakarta.servlet.ServletRequestWrapper", "jakarta.servlet.http.HttpServletRequestWrapper",
			"org.apache.catalina.connector.RequestFacade",
			"org.springframework.security.web.servletapi.SecurityContextHolderAwareRequestWrapper",
			// #request and #exchange on WebFlux, on Reactor Netty
			"org.springframework.http.HttpMessage", "org.springframework.http.HttpRequest",
			"org.springframework.http.HttpHeaders", "org.springframework.http.server.reactive.ServerHttpRequest",
			"org.springframework.http.server.reactive.AbstractServerHttpRequest",
			"org.springframework.http.server.reactive.ReactorServerHttpRequest",
			"org.springframework.http.server.reactive.ServerHttpRequestDecorator",
			"org.springframework.web.server.ServerWebExchange",
			"org.springframework.web.server.adapter.DefaultServerWebExchange",
			"org.springframework.web.server.ServerWebExchangeDecorator", "java.net.InetSocketAddress",
			"java.net.InetAddress",
			// #principal: Spring Security's authentications
			"java.security.Principal", "org.springframework.security.core.Authentication",
			"org.springframework.security.authentication.AbstractAuthenticationToken",
			"org.springframework.security.authentication.UsernamePasswordAuthenticationToken");

	/**
	 * The bodies of the {@code ratelimits} endpoint's operations that return a {@code WebEndpointResponse<Object>}
	 * (one client's state, a reset, an error, a page of usage), which Boot cannot see from the operations' signatures.
	 */
	static final List<String> ENDPOINT_BODIES = List.of(
			"dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint$ClientState",
			"dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint$Reset",
			"dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint$Error",
			"dev.ratelimit.spring.actuate.endpoint.RateLimitsEndpoint$UsagePage");

	private static final String ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		for (String root : EXPRESSION_ROOTS) {
			if (ClassUtils.isPresent(root, classLoader)) {
				hints.reflection().registerType(TypeReference.of(root), MemberCategory.INVOKE_PUBLIC_METHODS);
			}
		}
		// The annotation's attributes are read through its methods, and an annotation that merges it (one annotated
		// with @RateLimited) is synthesized as a JDK proxy.
		hints.reflection().registerType(RateLimited.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(RateLimited.List.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.proxies().registerJdkProxy(RateLimited.class);
		if (ClassUtils.isPresent(ENDPOINT, classLoader)) {
			BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
			for (String body : ENDPOINT_BODIES) {
				bindings.registerReflectionHints(hints.reflection(), ClassUtils.resolveClassName(body, classLoader));
			}
		}
	}

}
