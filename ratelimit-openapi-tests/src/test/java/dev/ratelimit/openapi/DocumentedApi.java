package dev.ratelimit.openapi;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operations of the test applications, the same on Spring MVC and WebFlux (plain values are handlers on both),
 * with the rules of {@link OpenApiContract#RULES}: each one covered by a limit, or not, as its comment says.
 */
@RestController
class DocumentedApi {

	/** Rule api ({@code /api/**}) covers it; rule special matches only one of its paths. */
	@GetMapping("/api/items/{id}")
	String item(@PathVariable String id) {
		return id;
	}

	/** Rules api and special. */
	@GetMapping("/api/items/special")
	String special() {
		return "special";
	}

	@RateLimited(name = "reports", algorithm = "token-bucket", limit = 2, window = "1m")
	@GetMapping("/reports")
	String reports() {
		return "report";
	}

	/** No limit at all. */
	@GetMapping("/open")
	String open() {
		return "open";
	}

	/** Rule orders, for POST only. */
	@PostMapping("/orders")
	String order() {
		return "ordered";
	}

	/** Not rule orders: it is for POST only. */
	@GetMapping("/orders")
	String orders() {
		return "orders";
	}

	/** Rule json-files ({@code /files/*.json}) matches only some of its paths. */
	@GetMapping("/files/{name}")
	String file(@PathVariable String name) {
		return name;
	}

	/** Rule numbered ({@code /versions/{id:\d+}}) matches only the digits. */
	@GetMapping("/versions/{id}")
	String version(@PathVariable String id) {
		return id;
	}

	/** Rule quota: calendar days in Berlin. */
	@GetMapping("/quota")
	String quota() {
		return "quota";
	}

	/** Rule shadowed, in shadow mode: it refuses nothing and sends no fields. */
	@GetMapping("/shadowed")
	String shadowed() {
		return "shadowed";
	}

	/** One operation in the document with {@link #searchAll()}, which has no limit: so the operation has none. */
	@RateLimited(name = "search", limit = 5, window = "1s")
	@GetMapping(path = "/search", params = "q")
	String search(@RequestParam String q) {
		return q;
	}

	@GetMapping("/search")
	String searchAll() {
		return "all";
	}

	@RateLimited(name = "exports", algorithm = "concurrency", limit = 2)
	@GetMapping("/exports")
	String exports() {
		return "export";
	}

	/** Shaped by plan (ratelimit.plans). */
	@RateLimited(name = "tiered")
	@GetMapping("/tiered")
	String tiered() {
		return "tiered";
	}

}
