package dev.ratelimit.dropin.host;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** The application's own security: {@code /limited} is public, everything else needs HTTP Basic authentication. */
@Configuration(proxyBeanMethods = false)
class HostSecurity {

	@Bean
	SecurityFilterChain hostSecurityFilterChain(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.requestMatchers("/limited").permitAll()
			.anyRequest()
			.authenticated()).httpBasic(Customizer.withDefaults()).build();
	}

}
