package dev.ratelimit.sample;

import java.util.List;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two limits on one endpoint: a token bucket of 5 per second against bursts and an exact sliding log of 20 per hour
 * as the quota. Both are decided in one Redis call, all or nothing: a call the per-second limit denies does not
 * count against the hourly quota.
 */
@RestController
class SearchController {

	record Results(String query, List<Catalog.Item> items) {
	}

	@GetMapping("/api/search")
	@RateLimited(name = "search-per-second", algorithm = "token-bucket", limit = 5, window = "1s",
			key = ApiKey.EXPRESSION)
	@RateLimited(name = "search-per-hour", algorithm = "sliding-log", limit = 20, window = "1h",
			key = ApiKey.EXPRESSION)
	Results search(@RequestParam String q) {
		return new Results(q, Catalog.search(q));
	}

}
