package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Annotated endpoints keyed by the client's IP address (the default key). Every limit is a token bucket of whole
 * minutes, so that tests on the Redis server's clock see no refill between their requests.
 */
@RestController
public class LimitedController {

	@GetMapping("/reports")
	@RateLimited(name = "reports", limit = 3, window = "1m")
	public String reports() {
		return "reports";
	}

	@GetMapping("/half-second")
	@RateLimited(name = "half-second", limit = 5, window = "500ms")
	public String halfSecond() {
		return "half-second";
	}

	@GetMapping("/styled")
	@RateLimited(name = "styled", limit = 2, window = "1m")
	public String styled() {
		return "styled";
	}

	@GetMapping("/api/small")
	@RateLimited(name = "api", algorithm = "token-bucket", limit = 10, window = "1m", cost = 1)
	public String small() {
		return "small";
	}

	@GetMapping("/api/large")
	@RateLimited(name = "api", algorithm = "token-bucket", limit = 10, window = "1m", cost = 5)
	public String large() {
		return "large";
	}

	@GetMapping("/alpha")
	@RateLimited(name = "alpha", limit = 1, window = "1m")
	public String alpha() {
		return "alpha";
	}

	@GetMapping("/beta")
	@RateLimited(name = "beta", limit = 1, window = "1m")
	public String beta() {
		return "beta";
	}

	@GetMapping("/bulk")
	@RateLimited(name = "bulk", limit = 10, window = "1m", cost = 5)
	public String bulk() {
		return "bulk";
	}

	/** Also matched by the filter rule that tests configure on {@code /combo}. */
	@GetMapping("/combo")
	@RateLimited(name = "combo", limit = 3, window = "1m")
	public String combo() {
		return "combo";
	}

	@GetMapping(path = "/html", produces = "text/html")
	@RateLimited(name = "html", limit = 1, window = "1m")
	public String html() {
		return "<p>html</p>";
	}

	@GetMapping("/burst")
	@RateLimited(name = "burst", algorithm = "sliding-log", limit = 5, window = "1m")
	public String burst() {
		return "burst";
	}

	/** Not annotated: limited only where a test configures a filter rule on it. */
	@GetMapping("/plain")
	public String plain() {
		return "plain";
	}

	@GetMapping("/plain-get")
	public String plainGet() {
		return "plain";
	}

	@GetMapping("/plain-daily")
	public String plainDaily() {
		return "plain";
	}

	@GetMapping("/plain-cors")
	public String plainCors() {
		return "plain";
	}

	/** Not annotated, and answers HTML only. */
	@GetMapping(path = "/plain-html", produces = "text/html")
	public String plainHtml() {
		return "<p>plain</p>";
	}

}
