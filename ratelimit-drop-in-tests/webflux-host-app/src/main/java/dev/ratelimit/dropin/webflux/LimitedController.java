package dev.ratelimit.dropin.webflux;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application's endpoint, limited by an annotation of the starter: 2 per minute per client. Where the host has
 * no starter, the annotation's class is not on the class path and the JVM drops the annotation: the same code,
 * unlimited. The checks put a filter rule of the starter on it too, by configuration only.
 */
@RestController
class LimitedController {

	@GetMapping("/limited")
	@RateLimited(limit = 2, window = "1m")
	Mono<String> limited() {
		return Mono.just("limited");
	}

}
