package dev.ratelimit.security;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@link SecuredApplicationContract} on WebFlux (Reactor Netty). */
class WebFluxSecuredApplicationTests extends SecuredApplicationContract {

	@Override
	WebApplicationType type() {
		return WebApplicationType.REACTIVE;
	}

	@Override
	Class<?> application() {
		return Application.class;
	}

	@Override
	Class<?> endpointSecurity() {
		return ReactiveRateLimitsEndpointSecurity.class;
	}

	@Override
	Class<?> applicationSecurity() {
		return ReactiveApplicationSecurity.class;
	}

	@Override
	Class<?> ownSecurity() {
		return OwnSecurity.class;
	}

	/** WebFlux's CSRF filter answers itself: 403. */
	@Override
	int csrfRefusal() {
		return 403;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@RestController
	static class Application {

		@GetMapping({ "/api/hello", "/public/hello" })
		Mono<String> hello() {
			return Mono.just("hello");
		}

		@PostMapping("/api/hello")
		Mono<String> post() {
			return Mono.just("posted");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnSecurity {

		@Bean
		SecurityWebFilterChain ownChain(ServerHttpSecurity http) {
			return http
				.authorizeExchange((exchanges) -> exchanges.pathMatchers("/public/**").permitAll()
					.anyExchange()
					.authenticated())
				.httpBasic(Customizer.withDefaults())
				.build();
		}

	}

}
