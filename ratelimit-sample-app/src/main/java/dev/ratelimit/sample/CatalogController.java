package dev.ratelimit.sample;

import dev.ratelimit.spring.RateLimited;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The cheap read: cost 1 from the client's {@code api-budget}, the token bucket it shares with
 * {@link ReportController}.
 */
@RestController
class CatalogController {

	@GetMapping("/api/catalog/{id}")
	@RateLimited(name = ReportController.BUDGET, algorithm = "token-bucket", limit = ReportController.BUDGET_UNITS,
			window = "1h", cost = 1, key = ApiKey.EXPRESSION)
	ResponseEntity<Catalog.Item> item(@PathVariable String id) {
		return ResponseEntity.of(Catalog.find(id));
	}

}
