package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

/** A service that a WebFlux handler calls, limited per account when its Mono is subscribed within the request. */
public class ReactiveAccountService {

	@RateLimited(name = "per-account", limit = 1, window = "1m", key = "#account")
	public Mono<String> balance(String account) {
		return Mono.just(account + ": 42");
	}

}
