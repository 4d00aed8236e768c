package dev.ratelimit.spring.test.app;

import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.CrossOrigin;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * WebFlux-only endpoints: handlers returning {@code Mono} and {@code Flux}, keys from their arguments, and a
 * functional endpoint that only a filter rule can limit.
 */
@RestController
public class ReactiveController {

	private final ReactiveAccountService accounts;

	public ReactiveController(ReactiveAccountService accounts) {
		this.accounts = accounts;
	}

	/** How many times {@link #counted} ran: a denied call must not run it. */
	public static final AtomicInteger countedCalls = new AtomicInteger();

	@GetMapping("/reactive/mono")
	@RateLimited(name = "mono", limit = 2, window = "1m")
	public Mono<String> mono() {
		return Mono.just("mono");
	}

	@GetMapping("/reactive/flux")
	@RateLimited(name = "flux", limit = 2, window = "1m")
	public Flux<String> flux() {
		return Flux.just("a", "b");
	}

	@GetMapping("/reactive/by-id/{id}")
	@RateLimited(name = "by-id", limit = 1, window = "1m", key = "#id")
	public Mono<String> byId(@PathVariable String id) {
		return Mono.just(id);
	}

	@GetMapping("/reactive/flux-by-id/{id}")
	@RateLimited(name = "flux-by-id", limit = 1, window = "1m", key = "#id")
	public Flux<String> fluxById(@PathVariable String id) {
		return Flux.just(id, id);
	}

	/** Counts its calls when it runs, before its Mono is subscribed. */
	@GetMapping("/reactive/counted/{id}")
	@RateLimited(name = "counted", limit = 1, window = "1m", key = "#id")
	public Mono<String> counted(@PathVariable String id) {
		countedCalls.incrementAndGet();
		return Mono.just("counted");
	}

	/** Decided by the filter (rule and IP-keyed annotation) and by the advisor (the argument's key) in one request. */
	@GetMapping("/reactive/split/{id}")
	@RateLimited(name = "split-by-ip", limit = 10, window = "1m")
	@RateLimited(name = "split-by-id", limit = 2, window = "1m", key = "#id")
	public Mono<String> split(@PathVariable String id) {
		return Mono.just(id);
	}

	@GetMapping("/reactive/cors")
	@CrossOrigin(origins = "https://example.org")
	@RateLimited(name = "cors", limit = 1, window = "1m")
	public Mono<String> cors() {
		return Mono.just("cors");
	}

	/** Not limited itself: the service it calls is. */
	@GetMapping("/reactive/balance/{account}")
	public Mono<String> balance(@PathVariable String account) {
		return this.accounts.balance(account);
	}

	@Bean
	RouterFunction<ServerResponse> functionalRoutes() {
		return RouterFunctions.route()
			.GET("/functional/hello", (request) -> ServerResponse.ok().bodyValue("hello"))
			.build();
	}

}
