package dev.ratelimit.sample;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Lists the endpoints at {@code /}, not limited, so it also serves as a readiness probe. */
@RestController
class HomeController {

	private static final String ENDPOINTS = """
			ratelimit sample: clients are told apart by their X-Api-Key header, or by IP address without one.
			  every /api/** request   filter rule 'api': sliding window counter, 100 per minute
			  GET  /api/ping          the 'api' rule only
			  GET  /api/catalog/{id}  cost 1 from the 'api-budget' token bucket (10 per hour; 100 for pro- keys)
			  GET  /api/reports/{id}  cost 5 from the same 'api-budget' bucket
			  GET  /api/search?q=     'search-per-second' (5 per second) and 'search-per-hour' (20 per hour)
			  POST /api/completions?words=50   'llm-tokens': 10,000 tokens per day, settled by what each call used
			  POST /auth/login        'login': sliding log, 5 failed attempts per minute per username, exactly
			  GET  /admin/status      HTTP Basic (admin / admin-secret); filter rule 'admin-logins': 5 failed logins
			                          per minute per IP address, counted from Spring Security's 401s, exactly
			  POST /demo/partner/burst?calls=20   calls a partner from background threads: 'partner', 5 per second
			                          for the whole fleet, each denied call waiting for a permit
			  GET  /playground        the four algorithms side by side on the same traffic, drawn (a page)
			  GET  /actuator/ratelimits[/{name}?client=key:<api key>]   the limits; a client's state (DELETE: reset it)
			  POST /actuator/ratelimits/{name}  {"plan": "free", "limit": 20}: change a limit on every instance
			""";

	@GetMapping(path = "/", produces = "text/plain")
	String endpoints() {
		return ENDPOINTS;
	}

	/** Limited by the 'api' filter rule of application.yml alone. */
	@GetMapping(path = "/api/ping", produces = "text/plain")
	String ping() {
		return "pong";
	}

}
