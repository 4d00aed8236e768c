package dev.ratelimit.spring.test.recipe;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The limit that docs/TESTING.md tests. */
// snippet:start controller
@RestController
class GreetingController {

	@GetMapping("/greeting")
	@RateLimited(name = "greeting", limit = 2, window = "1m", key = "#header('X-Api-Key')")
	String greeting() {
		return "Hello";
	}

}
// snippet:end controller
