package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@link ClockedController} on WebFlux: the same paths, names and limits, with keys read from WebFlux's request.
 * ({@code #request.getHeader('X-Client')} has no method to call on a {@code ServerHttpRequest}: the expression would
 * fail and every client would fall back to the one address of the test client.)
 */
@RestController
public class ReactiveClockedController {

	@GetMapping("/clocked/fixed-window")
	@RateLimited(name = "fw", algorithm = "fixed-window", limit = 4, window = "10s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String fixedWindow() {
		return "fixed-window";
	}

	@GetMapping("/clocked/sliding-log")
	@RateLimited(name = "sl", algorithm = "sliding-log", limit = 4, window = "10s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String slidingLog() {
		return "sliding-log";
	}

	@GetMapping("/clocked/sliding-window-counter")
	@RateLimited(name = "swc", algorithm = "sliding-window-counter", limit = 4, window = "10s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String slidingWindowCounter() {
		return "sliding-window-counter";
	}

	/** One token every 2.5 s. */
	@GetMapping("/clocked/token-bucket")
	@RateLimited(name = "tb", algorithm = "token-bucket", limit = 4, window = "10s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String tokenBucket() {
		return "token-bucket";
	}

	/** One token every 2 s. */
	@GetMapping("/clocked/token-bucket-whole")
	@RateLimited(name = "tb-whole", algorithm = "token-bucket", limit = 5, window = "10s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String tokenBucketWhole() {
		return "token-bucket-whole";
	}

	/** One token every 100 ms. */
	@GetMapping("/clocked/token-bucket-fast")
	@RateLimited(name = "tb-fast", algorithm = "token-bucket", limit = 10, window = "1s",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String tokenBucketFast() {
		return "token-bucket-fast";
	}

	@GetMapping("/clocked/tiered")
	@RateLimited(name = "per-second", algorithm = "fixed-window", limit = 2, window = "1s",
			key = "#request.getHeaders().getFirst('X-Client')")
	@RateLimited(name = "per-hour", algorithm = "fixed-window", limit = 3, window = "1h",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String tiered() {
		return "tiered";
	}

	/** Its limiter (in the test that uses it) charges more than the bucket holds. */
	@GetMapping("/clocked/oversized")
	@RateLimited(name = "oversized", algorithm = "token-bucket", limit = 10, window = "1m",
			key = "#request.getHeaders().getFirst('X-Client')")
	public String oversized() {
		return "oversized";
	}

}
