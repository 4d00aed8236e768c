package dev.ratelimit.dropin.webflux;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/** The application's own security: {@code /limited} is public, everything else needs HTTP Basic authentication. */
@Configuration(proxyBeanMethods = false)
class HostSecurity {

	@Bean
	SecurityWebFilterChain hostSecurityWebFilterChain(ServerHttpSecurity http) {
		return http.authorizeExchange((exchanges) -> exchanges.pathMatchers("/limited").permitAll()
			.anyExchange()
			.authenticated()).httpBasic(Customizer.withDefaults()).build();
	}

}
