package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;

/** An API interface as an OpenAPI generator writes it, with the limit on its method. */
public interface ReactivePlacementApi {

	@GetMapping("/placement/interface/{id}")
	@RateLimited(name = "placement-interface", limit = 1, window = "1m", key = "#id")
	Mono<String> byInterface(@PathVariable("id") String id);

}
