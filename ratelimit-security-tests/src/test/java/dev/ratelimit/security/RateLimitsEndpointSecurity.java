package dev.ratelimit.security;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The snippet of docs/OPERATIONS.md for Spring MVC, as written there (DocumentedSnippetsTests compares them): the
 * {@code ratelimits} endpoint with HTTP Basic, a role, no session and no CSRF token; every other URL keeps CSRF
 * protection, in the application's own chain or {@link ApplicationSecurity}.
 */
// snippet:start mvc
@Configuration(proxyBeanMethods = false)
class RateLimitsEndpointSecurity {

	/** The ratelimits endpoint only: HTTP Basic for the OPS role, no session, so no CSRF token to ask for. */
	@Bean
	@Order(1)
	SecurityFilterChain rateLimitsEndpointChain(HttpSecurity http) throws Exception {
		return http.securityMatcher(EndpointRequest.to("ratelimits"))
			.authorizeHttpRequests((requests) -> requests.anyRequest().hasRole("OPS"))
			.httpBasic(Customizer.withDefaults())
			.sessionManagement((session) -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.to("ratelimits")))
			.build();
	}

}
// snippet:end mvc
