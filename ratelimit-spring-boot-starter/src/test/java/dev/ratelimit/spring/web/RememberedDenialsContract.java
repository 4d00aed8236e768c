package dev.ratelimit.spring.web;

import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that keeps sending while it is denied costs Redis nothing: over a real server and the shared test Redis, the
 * Redis calls are counted by the limiter's timer ({@code ratelimit.redis.calls}). Written once and run on Spring MVC
 * ({@code MvcRememberedDenialsIntegrationTests}) and WebFlux ({@code WebFluxRememberedDenialsIntegrationTests}); with
 * {@code ratelimit.denials.remember=false}, every request is a call ({@code MvcDenialsNotRememberedIntegrationTests}).
 * The limit is a sliding log of 2 per hour, whose denial lasts about an hour, longer than the maximum age set here.
 */
@TestPropertySource(properties = { "ratelimit.filter.rules[0].name=flood", "ratelimit.filter.rules[0].paths=/shadow/only",
		"ratelimit.filter.rules[0].algorithm=sliding-log", "ratelimit.filter.rules[0].limit=2",
		"ratelimit.filter.rules[0].window=1h", "ratelimit.denials.max-age=1h" })
public abstract class RememberedDenialsContract extends ServerTestSupport {

	@Autowired
	private MeterRegistry registry;

	/** Whether the application under test remembers denials. */
	protected boolean remembers() {
		return true;
	}

	@Test
	void aDeniedClientIsAnsweredWithoutRedisWithTheSameFields() throws Exception {
		String address = "10.13.0." + (remembers() ? 1 : 2);
		double callsBefore = calls();
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(200);
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(200);
		HttpResponse<String> first = from(address, "/shadow/only");
		assertThat(first.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(first.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(3590L, 3600L);

		for (int i = 0; i < 30; i++) {
			HttpResponse<String> again = from(address, "/shadow/only");
			assertThat(again.statusCode()).isEqualTo(429);
			// the same fields, their waits shortened by the (short) time since
			assertThat(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow()))
				.isBetween(retryAfter - 5, retryAfter);
			assertThat(again.headers().allValues("RateLimit-Policy")).containsExactly("\"flood\";q=2;w=3600");
			assertThat(again.headers().allValues("RateLimit")).singleElement().asString().startsWith("\"flood\";r=0;t=");
			assertThat(JsonPath.<java.util.List<String>>read(again.body(), "$['violated-policies']"))
				.containsExactly("flood");
		}

		assertThat(calls() - callsBefore).isEqualTo(remembers() ? 3 : 33);
		assertThat(this.registry.get("ratelimit.denials.remembered").counter().count()).isEqualTo(remembers() ? 30 : 0);
		assertThat(this.registry.get("ratelimit.decisions").tag("limit", "flood").tag("outcome", "denied").counter().count())
			.isEqualTo(31);
		// another client of the same limit is still decided by Redis
		assertThat(from("10.13.1." + (remembers() ? 1 : 2), "/shadow/only").statusCode()).isEqualTo(200);
		assertThat(calls() - callsBefore).isEqualTo(remembers() ? 4 : 34);
		// a request of the same client that Redis admits (another limit) may change what the denial says: the next
		// request asks Redis again
		assertThat(from(address, "/shadow/both").statusCode()).isEqualTo(200);
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(429);
		assertThat(calls() - callsBefore).isEqualTo(remembers() ? 6 : 36);
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(429);
		assertThat(calls() - callsBefore).isEqualTo(remembers() ? 6 : 37);
	}

	private double calls() {
		return this.registry.find("ratelimit.redis.calls").timers().stream().mapToLong((timer) -> timer.count()).sum();
	}

}
