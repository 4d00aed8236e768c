package dev.ratelimit.spring.test.app;

import dev.ratelimit.spring.RateLimited;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints limited per client key expression, two requests per minute each.
 */
@RestController
public class ClientKeyController {

	@GetMapping("/keys/api-key")
	@RateLimited(name = "by-api-key", limit = 2, window = "1m", key = "#request.getHeader('X-Api-Key')")
	public String apiKey() {
		return "api-key";
	}

	/** The key helpers, written alike on every stack. */
	@GetMapping("/keys/helper-header")
	@RateLimited(name = "by-header-helper", limit = 2, window = "1m", key = "#header('X-Api-Key')")
	public String helperHeader() {
		return "helper-header";
	}

	@GetMapping("/keys/helper-query")
	@RateLimited(name = "by-query-helper", limit = 2, window = "1m", key = "#queryParam('tenant')")
	public String helperQuery() {
		return "helper-query";
	}

	@GetMapping("/keys/users/{username}")
	@RateLimited(name = "by-username", limit = 2, window = "1m", key = "#username")
	public String user(@PathVariable String username) {
		return username;
	}

	@GetMapping("/keys/tenant")
	@RateLimited(name = "by-tenant", limit = 2, window = "1m", key = "@tenantResolver.resolve(#request)")
	public String tenant() {
		return "tenant";
	}

	/** The expression fails (a method call on null) when the header is absent. */
	@GetMapping("/keys/failing")
	@RateLimited(name = "by-failing-key", limit = 2, window = "1m",
			key = "#request.getHeader('X-Api-Key').toLowerCase()")
	public String failing() {
		return "failing";
	}

	/** The bean called by the expression throws when the header is absent. */
	@GetMapping("/keys/throwing-bean")
	@RateLimited(name = "by-throwing-bean", limit = 2, window = "1m", key = "@tenantResolver.require(#request)")
	public String throwingBean() {
		return "throwing-bean";
	}

	@GetMapping("/keys/principal")
	@RateLimited(name = "by-principal", limit = 2, window = "1m", key = "#principal?.name")
	public String principal() {
		return "principal";
	}

	/** Limited by the client's IP address; answers the address the container reports. */
	@GetMapping("/keys/remote-addr")
	@RateLimited(name = "by-ip", limit = 1, window = "1m")
	public String remoteAddr(HttpServletRequest request) {
		return request.getRemoteAddr();
	}

}
