package dev.ratelimit.security;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * The second snippet of docs/OPERATIONS.md for WebFlux: an application that had Spring Boot's default security
 * gets it back with this chain, since the endpoint's chain turns Boot's default one off. An application with chains
 * of its own keeps them instead.
 */
// snippet:start webflux-default
@Configuration(proxyBeanMethods = false)
class ReactiveApplicationSecurity {

	/** Everything else, as Spring Boot's default chain secured it. */
	@Bean
	@Order(2)
	SecurityWebFilterChain applicationChain(ServerHttpSecurity http) {
		return http.authorizeExchange((exchanges) -> exchanges.anyExchange().authenticated())
			.formLogin(Customizer.withDefaults())
			.httpBasic(Customizer.withDefaults())
			.build();
	}

}
// snippet:end webflux-default
