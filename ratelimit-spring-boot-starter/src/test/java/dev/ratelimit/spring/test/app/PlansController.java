package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints of the plan and shadow tests; the same controller serves Spring MVC and WebFlux (it returns plain
 * strings). Their rules are in PlansAndShadowContract.
 */
@RestController
public class PlansController {

	/** Planned by annotation: its own shape (100 per minute) applies to no plan, since the default plan names it. */
	@RateLimited(name = "plan-reports", algorithm = "fixed-window", limit = 100, window = "1m",
			key = "@apiKeyPlans.key(#request)")
	@GetMapping("/plans/reports")
	public String reports() {
		return "report";
	}

	/** Planned by rule {@code search}. */
	@GetMapping("/plans/search")
	public String search() {
		return "results";
	}

	/** A shadow limit by annotation (2 per minute by IP), under an enforced rule {@code shadowed} (4 per minute). */
	@RateLimited(name = "trial", algorithm = "fixed-window", limit = 2, window = "1m", mode = "shadow")
	@GetMapping("/shadow/both")
	public String both() {
		return "both";
	}

	/** Limited by the shadow rule {@code dry-run} only. */
	@GetMapping("/shadow/only")
	public String only() {
		return "only";
	}

}
