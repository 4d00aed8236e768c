package dev.ratelimit.sample;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * HTTP Basic on {@code /admin/**} only; every other path stays open, as without Spring Security (this chain replaces
 * Spring Boot's default one). The filter rule {@code admin-logins} of application.yml counts only the 401s that
 * Spring Security answers to wrong passwords: it runs before Security, and reserves each attempt's unit until the
 * answer is known, so that concurrent guesses never pass the limit.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET) // not in --compare, which runs no server
class SecurityConfiguration {

	@Bean
	SecurityFilterChain adminChain(HttpSecurity http) throws Exception {
		return http.securityMatcher("/admin/**")
			.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.httpBasic(Customizer.withDefaults())
			.build();
	}

	/** One administrator, for the demonstration: a real application keeps its users elsewhere. */
	@Bean
	UserDetailsService administrators() {
		return new InMemoryUserDetailsManager(
				User.withUsername("admin").password("{noop}admin-secret").roles("ADMIN").build());
	}

	@RestController
	static class AdminController {

		@GetMapping(path = "/admin/status", produces = "text/plain")
		String status() {
			return "ok";
		}

	}

}
