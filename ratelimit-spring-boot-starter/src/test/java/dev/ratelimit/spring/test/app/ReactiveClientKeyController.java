package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@link ClientKeyController} on WebFlux: the same paths and limits; a key that reads the handler's arguments needs
 * a {@code Mono}, decided when it is subscribed.
 */
@RestController
public class ReactiveClientKeyController {

	@GetMapping("/keys/api-key")
	@RateLimited(name = "by-api-key", limit = 2, window = "1m", key = "#request.getHeaders().getFirst('X-Api-Key')")
	public String apiKey() {
		return "api-key";
	}

	/** The key helpers, written alike on every stack. */
	@GetMapping("/keys/helper-header")
	@RateLimited(name = "by-header-helper", limit = 2, window = "1m", key = "#header('X-Api-Key')")
	public String helperHeader() {
		return "helper-header";
	}

	@GetMapping("/keys/helper-query")
	@RateLimited(name = "by-query-helper", limit = 2, window = "1m", key = "#queryParam('tenant')")
	public String helperQuery() {
		return "helper-query";
	}

	@GetMapping("/keys/users/{username}")
	@RateLimited(name = "by-username", limit = 2, window = "1m", key = "#username")
	public Mono<String> user(@PathVariable String username) {
		return Mono.just(username);
	}

	@GetMapping("/keys/tenant")
	@RateLimited(name = "by-tenant", limit = 2, window = "1m", key = "@tenantResolver.resolve(#request)")
	public Mono<String> tenant() {
		return Mono.just("tenant");
	}

	/** The expression fails (a method call on null) when the header is absent. */
	@GetMapping("/keys/failing")
	@RateLimited(name = "by-failing-key", limit = 2, window = "1m",
			key = "#request.getHeaders().getFirst('X-Api-Key').toLowerCase()")
	public String failing() {
		return "failing";
	}

	/** The bean called by the expression throws when the header is absent. */
	@GetMapping("/keys/throwing-bean")
	@RateLimited(name = "by-throwing-bean", limit = 2, window = "1m", key = "@tenantResolver.require(#request)")
	public String throwingBean() {
		return "throwing-bean";
	}

	@GetMapping("/keys/principal")
	@RateLimited(name = "by-principal", limit = 2, window = "1m", key = "#principal?.name")
	public Mono<String> principal() {
		return Mono.just("principal");
	}

	/** Limited by the client's IP address; answers the address the server reports. */
	@GetMapping("/keys/remote-addr")
	@RateLimited(name = "by-ip", limit = 1, window = "1m")
	public String remoteAddr(ServerHttpRequest request) {
		return request.getRemoteAddress().getAddress().getHostAddress();
	}

}
