package dev.ratelimit.sample;

import java.time.Instant;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The expensive report: cost 5 from the same {@code api-budget} as {@link CatalogController}'s reads. One budget
 * because both annotations name it: a client spends its 10 units per hour as it likes, two reports or ten reads.
 */
@RestController
class ReportController {

	/** The shared limit's name; the two annotations must also agree on algorithm, limit and window. */
	static final String BUDGET = "api-budget";

	static final long BUDGET_UNITS = 10;

	record Report(String id, int items, Instant generatedAt) {
	}

	@GetMapping("/api/reports/{id}")
	@RateLimited(name = BUDGET, algorithm = "token-bucket", limit = BUDGET_UNITS, window = "1h", cost = 5,
			key = ApiKey.EXPRESSION)
	Report report(@PathVariable String id) {
		return new Report(id, Catalog.ITEMS.size(), Instant.now());
	}

}
