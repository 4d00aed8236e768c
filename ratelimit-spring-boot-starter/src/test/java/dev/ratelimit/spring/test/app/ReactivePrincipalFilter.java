package dev.ratelimit.spring.test.app;

import java.security.Principal;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Authenticates the user named by {@code X-User}, as a security filter would (ahead of the limiter's filter), so
 * that tests reach {@code #principal} on WebFlux without a security setup.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class ReactivePrincipalFilter implements WebFilter {

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String user = exchange.getRequest().getHeaders().getFirst("X-User");
		if (user == null) {
			return chain.filter(exchange);
		}
		Principal principal = () -> user;
		return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
	}

}
