package dev.ratelimit.security;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The second snippet of docs/OPERATIONS.md for Spring MVC: an application that had Spring Boot's default security
 * gets it back with this chain, since the endpoint's chain turns Boot's default one off. An application with chains
 * of its own keeps them instead.
 */
// snippet:start mvc-default
@Configuration(proxyBeanMethods = false)
class ApplicationSecurity {

	/** Everything else, as Spring Boot's default chain secured it. */
	@Bean
	@Order(2)
	SecurityFilterChain applicationChain(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.formLogin(Customizer.withDefaults())
			.httpBasic(Customizer.withDefaults())
			.build();
	}

}
// snippet:end mvc-default
