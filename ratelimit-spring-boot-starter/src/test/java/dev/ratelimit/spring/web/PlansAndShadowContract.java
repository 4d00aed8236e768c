package dev.ratelimit.spring.web;

import java.net.http.HttpResponse;
import java.time.Duration;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.limits.PlanSelector;
import dev.ratelimit.spring.test.app.ApiKeyPlans;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans per client and shadow limits over a real server and the shared test Redis, written once and run on Spring MVC
 * ({@code MvcPlansAndShadowIntegrationTests}) and WebFlux ({@code WebFluxPlansAndShadowIntegrationTests}). Each test
 * uses API keys or client addresses of its own.
 */
@TestPropertySource(properties = { "ratelimit.plan.expression=@apiKeyPlans.plan(#request)", "ratelimit.plan.default-plan=free",
		"ratelimit.plans.free.plan-reports.limit=2", "ratelimit.plans.pro.plan-reports.limit=5",
		"ratelimit.plans.pro.search.limit=3", "ratelimit.plans.pro.search.algorithm=sliding-log",
		"ratelimit.filter.rules[0].name=search", "ratelimit.filter.rules[0].paths=/plans/search",
		"ratelimit.filter.rules[0].algorithm=fixed-window", "ratelimit.filter.rules[0].limit=100",
		"ratelimit.filter.rules[0].key=@apiKeyPlans.key(#request)",
		"ratelimit.filter.rules[1].name=shadowed", "ratelimit.filter.rules[1].paths=/shadow/both",
		"ratelimit.filter.rules[1].algorithm=fixed-window", "ratelimit.filter.rules[1].limit=4",
		"ratelimit.filter.rules[2].name=dry-run", "ratelimit.filter.rules[2].paths=/shadow/only",
		"ratelimit.filter.rules[2].algorithm=fixed-window", "ratelimit.filter.rules[2].limit=2",
		"ratelimit.filter.rules[2].mode=shadow" })
public abstract class PlansAndShadowContract extends ServerTestSupport {

	/** The limits these tests count on are fixed windows of one minute: a test's requests stay in one. */
	@BeforeEach
	void inOneMinute() throws InterruptedException {
		awaitRoomInTheMinute();
	}

	private static final LimitDefinition TRIAL = LimitDefinition.of("trial", Algorithm.FIXED_WINDOW, 2,
			Duration.ofMinutes(1));

	private static final LimitDefinition DRY_RUN = LimitDefinition.of("dry-run", Algorithm.FIXED_WINDOW, 2,
			Duration.ofMinutes(1));

	@Autowired
	private ApiKeyPlans plans;

	@Autowired
	private RateLimiter limiter;

	@Test
	void eachPlanHasItsOwnBudgetOnAnAnnotatedLimit() throws Exception {
		this.plans.assign("free-1", "free");
		this.plans.assign("pro-1", "pro");
		assertAdmitted("free-1", "/plans/reports", 2, "\"plan-reports\";q=2;w=60");
		assertAdmitted("pro-1", "/plans/reports", 5, "\"plan-reports\";q=5;w=60");
	}

	@Test
	void anUnknownOrMissingPlanIsTheDefaultPlan() throws Exception {
		this.plans.assign("gold-1", "gold");
		assertAdmitted("gold-1", "/plans/reports", 2, "\"plan-reports\";q=2;w=60");
		// No plan at all for this key: the lookup yields null.
		assertAdmitted("unassigned-1", "/plans/reports", 2, "\"plan-reports\";q=2;w=60");
	}

	@Test
	void aRuleTakesItsPlansShapeAndItsOwnWhereNoPlanNamesIt() throws Exception {
		this.plans.assign("pro-2", "pro");
		this.plans.assign("free-2", "free");
		assertAdmitted("pro-2", "/plans/search", 3, "\"search\";q=3;w=60");
		// Neither free (the default) nor any other plan of this key shapes search: the rule's own 100 applies.
		HttpResponse<String> free = get("/plans/search", "X-Api-Key", "free-2");
		assertThat(free.statusCode()).isEqualTo(200);
		assertThat(free.headers().allValues("RateLimit-Policy")).containsExactly("\"search\";q=100;w=60");
	}

	@Test
	void aClientThatChangesPlanGetsTheNewShapeFromItsNextRequest() throws Exception {
		this.plans.assign("upgrading", "free");
		assertAdmitted("upgrading", "/plans/reports", 2, "\"plan-reports\";q=2;w=60");
		this.plans.assign("upgrading", "pro");
		// The same algorithm and window: the two requests spent as free count against pro's five.
		HttpResponse<String> upgraded = get("/plans/reports", "X-Api-Key", "upgrading");
		assertThat(upgraded.statusCode()).isEqualTo(200);
		assertThat(upgraded.headers().allValues("RateLimit")).singleElement()
			.asString()
			.startsWith("\"plan-reports\";r=2;");
		this.plans.assign("upgrading", "free");
		HttpResponse<String> downgraded = get("/plans/reports", "X-Api-Key", "upgrading");
		assertThat(downgraded.statusCode()).isEqualTo(429);
		assertThat(downgraded.headers().allValues("RateLimit-Policy")).containsExactly("\"plan-reports\";q=2;w=60");
	}

	@Test
	void aShadowLimitNeverRefusesButCountsExactlyAsIfEnforced() throws Exception {
		String address = "10.9.0.1";
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = from(address, "/shadow/only");
			assertThat(response.statusCode()).isEqualTo(200);
			// No fields: a client would slow down for a limit that refuses nothing.
			assertThat(response.headers().map().keySet()).noneMatch((name) -> name.toLowerCase().startsWith("ratelimit"));
		}
		// Counted as if enforced: its two units are spent, and stay spent within the window.
		assertThat(this.limiter.tryAcquire("ip:" + address, DRY_RUN).allowed()).isFalse();
		// A client with no requests still has them.
		assertThat(this.limiter.tryAcquire("ip:10.9.0.2", DRY_RUN).allowed()).isTrue();
	}

	@Test
	void aShadowLimitBesideAnEnforcedOneConsumesOnlyWhenTheRequestGoesAhead() throws Exception {
		String address = "10.9.1.1";
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> response = from(address, "/shadow/both");
			assertThat(response.statusCode()).isEqualTo(200);
			// Only the enforced limit's fields: four of four spent.
			assertThat(response.headers().allValues("RateLimit-Policy")).containsExactly("\"shadowed\";q=4;w=60");
			assertThat(response.headers().allValues("RateLimit")).singleElement()
				.asString()
				.startsWith("\"shadowed\";r=" + (3 - i) + ";");
		}
		HttpResponse<String> denied = from(address, "/shadow/both");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().allValues("RateLimit-Policy")).containsExactly("\"shadowed\";q=4;w=60");
		assertThat(denied.body()).contains("shadowed").doesNotContain("trial");
		// The shadow limit admitted two of the four and denied two, which spent nothing: it holds exactly two.
		assertThat(this.limiter.tryAcquire("ip:" + address, TRIAL).allowed()).isFalse();
	}

	@Test
	void aShadowLimitThatAdmitsOnlyOnceHasAdmittedOnce() throws Exception {
		// The sibling of the test above, so that it cannot pass by a shadow limit that always reads as spent.
		String address = "10.9.1.2";
		assertThat(from(address, "/shadow/both").statusCode()).isEqualTo(200);
		assertThat(this.limiter.tryAcquire("ip:" + address, TRIAL).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("ip:" + address, TRIAL).allowed()).isFalse();
	}

	private void assertAdmitted(String apiKey, String path, int admitted, String policy) throws Exception {
		for (int i = 0; i < admitted; i++) {
			HttpResponse<String> response = get(path, "X-Api-Key", apiKey);
			assertThat(response.statusCode()).as("request %d of %s", i + 1, apiKey).isEqualTo(200);
			assertThat(response.headers().allValues("RateLimit-Policy")).containsExactly(policy);
		}
		HttpResponse<String> denied = get(path, "X-Api-Key", apiKey);
		assertThat(denied.statusCode()).as("request %d of %s", admitted + 1, apiKey).isEqualTo(429);
		assertThat(denied.headers().allValues("RateLimit-Policy")).containsExactly(policy);
	}

}
