package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Annotations where WebFlux applications put them: on the class, for every handler, and on a generated API
 * interface that the controller implements.
 */
@RestController
@RateLimited(name = "placement-class", limit = 2, window = "1m")
public class ReactivePlacementController implements ReactivePlacementApi {

	@GetMapping("/placement/class")
	public Mono<String> byClass() {
		return Mono.just("class");
	}

	@Override
	public Mono<String> byInterface(String id) {
		return Mono.just(id);
	}

}
