package dev.ratelimit.openapi;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** A class's limit: every handler method of the class has it. */
@RateLimited(name = "admin", algorithm = "sliding-window-counter", limit = 3, window = "1h")
@RestController
class AdminApi {

	@GetMapping("/admin/users")
	String users() {
		return "users";
	}

	@GetMapping("/admin/stats")
	String stats() {
		return "stats";
	}

}
