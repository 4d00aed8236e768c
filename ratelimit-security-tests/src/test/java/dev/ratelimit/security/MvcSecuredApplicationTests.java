package dev.ratelimit.security;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@link SecuredApplicationContract} on Spring MVC (Tomcat). */
class MvcSecuredApplicationTests extends SecuredApplicationContract {

	@Override
	WebApplicationType type() {
		return WebApplicationType.SERVLET;
	}

	@Override
	Class<?> application() {
		return Application.class;
	}

	@Override
	Class<?> endpointSecurity() {
		return RateLimitsEndpointSecurity.class;
	}

	@Override
	Class<?> applicationSecurity() {
		return ApplicationSecurity.class;
	}

	@Override
	Class<?> ownSecurity() {
		return OwnSecurity.class;
	}

	/** Spring Security's CSRF filter refuses an anonymous request: the entry point answers, HTTP Basic's 401. */
	@Override
	int csrfRefusal() {
		return 401;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@RestController
	static class Application {

		@GetMapping({ "/api/hello", "/public/hello" })
		String hello() {
			return "hello";
		}

		@PostMapping("/api/hello")
		String post() {
			return "posted";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnSecurity {

		@Bean
		SecurityFilterChain ownChain(HttpSecurity http) throws Exception {
			return http
				.authorizeHttpRequests((requests) -> requests.requestMatchers("/public/**").permitAll()
					.anyRequest()
					.authenticated())
				.httpBasic(Customizer.withDefaults())
				.build();
		}

	}

}
