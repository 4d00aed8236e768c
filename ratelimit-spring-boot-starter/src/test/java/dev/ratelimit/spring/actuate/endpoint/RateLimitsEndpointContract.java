package dev.ratelimit.spring.actuate.endpoint;

import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.spring.test.ClientTags;
import dev.ratelimit.spring.test.app.ApiKeyPlans;
import dev.ratelimit.spring.web.ServerTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ratelimits} Actuator endpoint over a real server, exposed on the web, written once and run on Spring MVC
 * ({@link MvcRateLimitsEndpointIntegrationTests}), WebFlux ({@link WebFluxRateLimitsEndpointIntegrationTests}) and in
 * memory ({@link InMemoryMvcRateLimitsEndpointIntegrationTests}). The limits are those of {@code PlansController} and
 * one rule. Each test uses API keys or client addresses of its own.
 */
@TestPropertySource(properties = { "management.endpoints.web.exposure.include=ratelimits",
		"ratelimit.plan.expression=@apiKeyPlans.plan(#request)", "ratelimit.plans.free.plan-reports.limit=2",
		"ratelimit.plans.pro.plan-reports.limit=5", "ratelimit.plans.pro.search.algorithm=sliding-log",
		"ratelimit.plans.pro.search.limit=3", "ratelimit.filter.rules[0].name=search",
		"ratelimit.filter.rules[0].paths=/plans/search", "ratelimit.filter.rules[0].algorithm=fixed-window",
		"ratelimit.filter.rules[0].limit=100", "ratelimit.filter.rules[0].key=@apiKeyPlans.key(#request)",
		"ratelimit.filter.rules[0].failure-policy=fail-closed", "ratelimit.filter.rules[1].paths=/shadow/only",
		"ratelimit.filter.rules[1].algorithm=fixed-window", "ratelimit.filter.rules[1].limit=5",
		"ratelimit.filter.rules[1].window=1h", "ratelimit.filter.rules[1].cost=2", "ratelimit.filter.rules[2].name=bucket",
		"ratelimit.filter.rules[2].paths=/bucket/only", "ratelimit.filter.rules[2].algorithm=token-bucket",
		"ratelimit.filter.rules[2].limit=10", "ratelimit.filter.rules[2].capacity=4",
		"ratelimit.filter.rules[2].usage=true" })
abstract class RateLimitsEndpointContract extends ServerTestSupport {

	/** The limits these tests count on are fixed windows of one minute: a test's requests stay in one. */
	@BeforeEach
	void inOneMinute() throws InterruptedException {
		awaitRoomInTheMinute();
	}

	@Autowired
	private ApiKeyPlans plans;

	/** {@code ratelimit.store} of the application under test. */
	String store() {
		return "redis";
	}

	@Test
	void listsEveryLimitWithItsSourceAndTheShapeOfEachPlan() throws Exception {
		HttpResponse<String> response = read("/actuator/ratelimits");
		assertThat(response.statusCode()).isEqualTo(200);
		String body = response.body();
		assertThat(JsonPath.<String>read(body, "$.store")).isEqualTo(store());
		assertThat(JsonPath.<String>read(body, "$.plans.expression")).isEqualTo("@apiKeyPlans.plan(#request)");
		assertThat(JsonPath.<String>read(body, "$.plans.defaultPlan")).isEqualTo("free");
		assertThat(JsonPath.<List<String>>read(body, "$.plans.names")).containsExactly("free", "pro");

		List<Map<String, Object>> search = JsonPath.read(body, "$.limits[?(@.name == 'search')]");
		// free names no shape for the rule: its own; pro its own shape
		assertThat(search).containsExactly(
				row("search", "ratelimit.filter.rules[0]", "free", "fixed-window", 100, "PT1M", null, 1,
						"@apiKeyPlans.key(#request)", "fail-closed", "enforce"),
				row("search", "ratelimit.filter.rules[0]", "pro", "sliding-log", 3, "PT1M", null, 1,
						"@apiKeyPlans.key(#request)", "fail-closed", "enforce"));
		String source = "@RateLimited on dev.ratelimit.spring.test.app.PlansController.";
		assertThat(JsonPath.<List<Map<String, Object>>>read(body, "$.limits[?(@.name == 'plan-reports')]"))
			.containsExactly(
					row("plan-reports", source + "reports()", "free", "fixed-window", 2, "PT1M", null, 1,
							"@apiKeyPlans.key(#request)", "fail-open", "enforce"),
					row("plan-reports", source + "reports()", "pro", "fixed-window", 5, "PT1M", null, 1,
							"@apiKeyPlans.key(#request)", "fail-open", "enforce"));
		assertThat(JsonPath.<List<Map<String, Object>>>read(body, "$.limits[?(@.name == 'trial')]")).containsExactly(
				row("trial", source + "both()", null, "fixed-window", 2, "PT1M", null, 1, null, "fail-open", "shadow"));
		assertThat(JsonPath.<List<Map<String, Object>>>read(body, "$.limits[?(@.name == 'bucket')]")).as(
				"only a token bucket has a capacity")
			.containsExactly(row("bucket", "ratelimit.filter.rules[2]", null, "token-bucket", 10, "PT1M", 4, 1, null,
					"fail-open", "enforce", "month"));
		assertThat(JsonPath.<List<String>>read(body, "$.limits[*].name")).isSorted();
	}

	@Test
	void readsAClientsStateWithoutConsumingAnything() throws Exception {
		this.plans.assign("reader", "pro");
		for (int i = 0; i < 2; i++) {
			assertThat(get("/plans/reports", "X-Api-Key", "reader").statusCode()).isEqualTo(200);
		}
		String path = "/actuator/ratelimits/plan-reports?client=key:reader";
		for (int read = 0; read < 3; read++) {
			HttpResponse<String> state = read(path);
			assertThat(state.statusCode()).isEqualTo(200);
			assertThat(JsonPath.<String>read(state.body(), "$.client")).isEqualTo("key:reader");
			// Both plans read one state (one algorithm and window): 2 of free's 2 spent, 2 of pro's 5.
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].plan")).containsExactly("free", "pro");
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].limit")).containsExactly(2, 5);
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].remaining")).containsExactly(0, 3);
			// near the limit: more than 0.8 of the budget used; free's 2 of 2, not pro's 2 of 5
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].nearLimit")).containsExactly(true, false);
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].requests[*].cost")).containsExactly(1, 1);
			assertThat(JsonPath.<List<Object>>read(state.body(), "$.states[*].requests[0].allowed"))
				.containsExactly(false, true);
			assertThat(JsonPath.<Integer>read(state.body(), "$.states[1].requests[0].retryAfterMs")).isZero();
			assertThat(JsonPath.<String>read(state.body(), "$.states[1].requests[0].rateLimit"))
				.matches("\"plan-reports\";r=3;t=\\d+");
		}
		// Three reads consumed nothing: the pro client still has exactly three.
		for (int i = 0; i < 3; i++) {
			assertThat(get("/plans/reports", "X-Api-Key", "reader").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> denied = get("/plans/reports", "X-Api-Key", "reader");
		assertThat(denied.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());

		String state = read(path).body();
		assertThat(JsonPath.<Boolean>read(state, "$.states[1].requests[0].allowed")).isFalse();
		assertThat(JsonPath.<Integer>read(state, "$.states[1].remaining")).isZero();
		assertThat(JsonPath.<Boolean>read(state, "$.states[1].nearLimit")).isTrue();
		long retryAfterMs = JsonPath.<Number>read(state, "$.states[1].requests[0].retryAfterMs").longValue();
		// read after the 429, so at most its Retry-After: the end of the fixed minute's window
		assertThat(retryAfterMs).isPositive().isLessThanOrEqualTo(retryAfter * 1000).isLessThanOrEqualTo(60_000);
		assertThat(JsonPath.<Number>read(state, "$.states[1].resetAfterMs").longValue()).isEqualTo(retryAfterMs);
	}

	@Test
	void aLimitNamedAfterItsPathIsReadByThatPathAndJudgedAtItsCost() throws Exception {
		String address = "10.11.1.1";
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(200);
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(200);
		// the rule is named /shadow/only: its name's slashes are the path's
		String state = read("/actuator/ratelimits/shadow/only?client=ip:" + address).body();
		assertThat(JsonPath.<String>read(state, "$.name")).isEqualTo("/shadow/only");
		assertThat(JsonPath.<Integer>read(state, "$.states[0].remaining")).isEqualTo(1);
		// one unit left, and the rule's requests cost two: the next one is denied
		assertThat(JsonPath.<List<Object>>read(state, "$.states[0].requests[*].cost")).containsExactly(2);
		assertThat(JsonPath.<List<Object>>read(state, "$.states[0].requests[*].allowed")).containsExactly(false);
		long retryAfterMs = JsonPath.<Number>read(state, "$.states[0].requests[0].retryAfterMs").longValue();
		HttpResponse<String> denied = from(address, "/shadow/only");
		assertThat(denied.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfterMs).isBetween(retryAfter * 1000 - 1000, retryAfter * 1000 + 1000);
		assertThat(JsonPath.<String>read(state, "$.states[0].requests[0].rateLimit"))
			.matches("\"/shadow/only\";r=1;t=\\d+");
		assertThat(reset("/actuator/ratelimits/shadow/only?client=ip:" + address).statusCode()).isEqualTo(200);
		assertThat(from(address, "/shadow/only").statusCode()).isEqualTo(200);
	}

	@Test
	void resetUnblocksOneClientInEveryPlanAndLeavesTheOthers() throws Exception {
		this.plans.assign("locked-out", "pro");
		this.plans.assign("neighbour", "pro");
		for (String client : List.of("locked-out", "neighbour")) {
			for (int i = 0; i < 3; i++) {
				assertThat(get("/plans/search", "X-Api-Key", client).statusCode()).isEqualTo(200);
			}
			assertThat(get("/plans/search", "X-Api-Key", client).statusCode()).isEqualTo(429);
		}
		// also spent as free, in the rule's own shape: another state of the same limit
		this.plans.assign("locked-out", "free");
		assertThat(get("/plans/search", "X-Api-Key", "locked-out").statusCode()).isEqualTo(200);
		this.plans.assign("locked-out", "pro");

		HttpResponse<String> reset = reset("/actuator/ratelimits/search?client=key:locked-out");

		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(JsonPath.<Integer>read(reset.body(), "$.deleted")).isEqualTo(2);
		String state = read("/actuator/ratelimits/search?client=key:locked-out").body();
		assertThat(JsonPath.<List<Object>>read(state, "$.states[*].remaining")).containsExactly(100, 3);
		for (int i = 0; i < 3; i++) {
			assertThat(get("/plans/search", "X-Api-Key", "locked-out").statusCode()).isEqualTo(200);
		}
		assertThat(get("/plans/search", "X-Api-Key", "neighbour").statusCode()).isEqualTo(429);
		assertThat(JsonPath.<Integer>read(reset("/actuator/ratelimits/search?client=key:nobody").body(), "$.deleted"))
			.isZero();
	}

	@Test
	void readsALimitByIpAddressWithTheClientsAddress() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(from("10.11.0.1", "/shadow/both").statusCode()).isEqualTo(200);
		}
		String state = read("/actuator/ratelimits/trial?client=ip:10.11.0.1").body();
		// a shadow limit, counted as if enforced: its two units are spent; its responses carry no fields
		assertThat(JsonPath.<List<Object>>read(state, "$.states[*].remaining")).containsExactly(0);
		assertThat(JsonPath.<List<Object>>read(state, "$.states[0].requests[*].allowed")).containsExactly(false);
		assertThat(JsonPath.<List<Object>>read(state, "$.states[0].requests[*].rateLimit")).containsExactly((Object) null);
		assertThat(JsonPath.<List<Object>>read(state, "$.states[*].plan")).containsExactly((Object) null);
		String untouched = read("/actuator/ratelimits/trial?client=ip:10.11.0.2").body();
		assertThat(JsonPath.<List<Object>>read(untouched, "$.states[*].remaining")).containsExactly(2);
	}

	@Test
	void anIpv6ClientIsOneClientHoweverItsAddressIsWritten() throws Exception {
		// one request in each spelling of the forwarded header: one client, whose two units of trial are spent
		assertThat(from("2001:db8::11", "/shadow/both").statusCode()).isEqualTo(200);
		assertThat(from("2001:db8:0:0:0:0:0:11", "/shadow/both").statusCode()).isEqualTo(200);
		for (String client : List.of("2001:db8::11", "[2001:db8::11]", "2001:db8:0:0:0:0:0:11", "2001:DB8::0:11")) {
			String state = read("/actuator/ratelimits/trial?client="
					+ URLEncoder.encode("ip:" + client, StandardCharsets.UTF_8)).body();
			assertThat(JsonPath.<String>read(state, "$.client")).isEqualTo("ip:2001:db8:0:0:0:0:0:11");
			assertThat(JsonPath.<List<Object>>read(state, "$.states[*].remaining")).as(client).containsExactly(0);
		}
	}

	@Test
	void answersNotFoundForAnUnknownLimitAndBadRequestForWhatIsNoClientKey() throws Exception {
		HttpResponse<String> unknown = read("/actuator/ratelimits/nope?client=key:k");
		assertThat(unknown.statusCode()).isEqualTo(404);
		assertThat(unknown.body()).contains("No rate limit is named 'nope'").contains("plan-reports");
		assertThat(reset("/actuator/ratelimits/nope?client=key:k").statusCode()).isEqualTo(404);
		for (String client : List.of("bob", "key:", "ip:", "IP:10.0.0.1")) {
			HttpResponse<String> bad = read("/actuator/ratelimits/trial?client=" + client);
			assertThat(bad.statusCode()).as("client=%s", client).isEqualTo(400);
			assertThat(bad.body()).contains("ip:<address>").contains("key:<value>");
			assertThat(reset("/actuator/ratelimits/trial?client=" + client).statusCode()).as("client=%s", client)
				.isEqualTo(400);
		}
		assertThat(read("/actuator/ratelimits/trial").statusCode()).as("without a client").isEqualTo(400);
	}

	@Test
	void listsEveryClientsUsageLargestFirstPageByPage() throws Exception {
		// the bucket rule (4 at once per client address) records usage per month in UTC
		Map<String, Integer> admitted = new java.util.TreeMap<>();
		int[] requests = { 6, 2, 1 };
		for (int client = 0; client < requests.length; client++) {
			String address = "10.12.0." + (client + 1);
			for (int i = 0; i < requests[client]; i++) {
				// no handler answers the path (404): the rule decides on arrival all the same
				if (from(address, "/bucket/only").statusCode() != 429) {
					admitted.merge("ip:" + address, 1, Integer::sum);
				}
			}
		}
		// 4 at once: the first client's fifth and sixth are denied (unless the bucket refilled meanwhile)
		assertThat(admitted.get("ip:10.12.0.1")).isBetween(4, 6);

		HttpResponse<String> first = read("/actuator/ratelimits/bucket/usage?size=2");
		assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
		String body = first.body();
		assertThat(JsonPath.<String>read(body, "$.name")).isEqualTo("bucket");
		assertThat(JsonPath.<String>read(body, "$.period")).isEqualTo("current");
		assertThat(java.time.Instant.parse(JsonPath.read(body, "$.periodStart"))).isBefore(java.time.Instant.now());
		assertThat(JsonPath.<Integer>read(body, "$.clients")).isEqualTo(3);
		assertThat(JsonPath.<Integer>read(body, "$.overflowUnits")).isZero();
		assertThat(JsonPath.<List<String>>read(body, "$.entries[*].client")).containsExactly("ip:10.12.0.1",
				"ip:10.12.0.2");
		assertThat(JsonPath.<List<Integer>>read(body, "$.entries[*].units"))
			.containsExactly(admitted.get("ip:10.12.0.1"), 2);
		String second = read("/actuator/ratelimits/bucket/usage?size=2&page=1").body();
		assertThat(JsonPath.<List<String>>read(second, "$.entries[*].client")).containsExactly("ip:10.12.0.3");
		assertThat(JsonPath.<List<Object>>read(read("/actuator/ratelimits/bucket/usage?period=previous").body(),
				"$.entries")).isEmpty();

		assertThat(read("/actuator/ratelimits/bucket/usage?period=next").statusCode()).isEqualTo(400);
		assertThat(read("/actuator/ratelimits/bucket/usage?size=0").statusCode()).isEqualTo(400);
		assertThat(read("/actuator/ratelimits/bucket/usage?page=-1").statusCode()).isEqualTo(400);
		HttpResponse<String> none = read("/actuator/ratelimits/trial/usage");
		assertThat(none.statusCode()).isEqualTo(404);
		assertThat(none.body()).contains("'trial' records no usage");
		assertThat(read("/actuator/ratelimits/nope/usage").statusCode()).isEqualTo(404);
	}

	@Test
	void anOverrideChangesALimitAtOnceAndUndoingItRestoresTheConfiguredOne() throws Exception {
		// search: rule 0, fixed window of 100 per minute by API key; free has no shape of it (its own)
		try {
			HttpResponse<String> set = write("/actuator/ratelimits/search", "{\"limit\": 2, \"mode\": \"enforce\"}");
			assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "override-a").statusCode()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "override-a").statusCode()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "override-a").statusCode()).isEqualTo(429);

			String listed = read("/actuator/ratelimits").body();
			assertThat(JsonPath.<List<Map<String, Object>>>read(listed, "$.overrides")).hasSize(1);
			assertThat(JsonPath.<String>read(listed, "$.overrides[0].name")).isEqualTo("search");
			assertThat(JsonPath.<Integer>read(listed, "$.overrides[0].limit")).isEqualTo(2);
			assertThat(JsonPath.<Boolean>read(listed, "$.overrides[0].inForce")).isTrue();
			assertThat(JsonPath.<List<Integer>>read(listed, "$.limits[?(@.name == 'search' && @.plan == 'free')].limit"))
				.containsExactly(2);
			// pro's own shape of the limit stands: an override of the limit changes its configured shape only
			assertThat(JsonPath.<List<Integer>>read(listed, "$.limits[?(@.name == 'search' && @.plan == 'pro')].limit"))
				.containsExactly(3);
		}
		finally {
			HttpResponse<String> undone = write("/actuator/ratelimits/search", "{\"undo\": true}");
			assertThat(undone.statusCode()).as(undone.body()).isEqualTo(200);
		}
		// the configured 100 again, the state kept: two spent of the minute's 100
		assertThat(get("/plans/search", "X-Api-Key", "override-a").statusCode()).isEqualTo(200);
		assertThat(JsonPath.<List<Object>>read(read("/actuator/ratelimits").body(), "$.overrides")).isEmpty();
	}

	@Test
	void aPlansShapeIsOverriddenForThatPlanAlone() throws Exception {
		this.plans.assign("override-pro", "pro");
		try {
			HttpResponse<String> set = write("/actuator/ratelimits/plan-reports", "{\"plan\": \"pro\", \"limit\": 1}");
			assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "override-pro").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "override-pro").statusCode()).isEqualTo(429);
			// free keeps its 2
			assertThat(get("/plans/reports", "X-Api-Key", "override-free").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "override-free").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "override-free").statusCode()).isEqualTo(429);
			// a plan shapes a limit; its mode is the limit's own
			assertThat(write("/actuator/ratelimits/plan-reports", "{\"plan\": \"pro\", \"mode\": \"shadow\"}")
				.statusCode()).isEqualTo(400);
			assertThat(write("/actuator/ratelimits/plan-reports", "{\"plan\": \"gold\", \"limit\": 9}").statusCode())
				.isEqualTo(404);
		}
		finally {
			assertThat(write("/actuator/ratelimits/plan-reports", "{\"plan\": \"pro\", \"undo\": true}").statusCode())
				.isEqualTo(200);
		}
	}

	@Test
	void aClientsOverrideChangesItsLimitAloneInEveryPlanOrInOneAndIsUndone() throws Exception {
		// search: rule 0, a fixed window of 100 per minute by API key, pro's own a sliding log of 3; plan-reports:
		// 2 in free, 5 in pro
		this.plans.assign("tenant-pro", "pro");
		this.plans.assign("tenant-pro-elsewhere", "pro");
		String ownTag = ClientTags.of("key:tenant-own");
		try {
			// {client, limit}: the client's limit in whichever plan it has
			HttpResponse<String> own = write("/actuator/ratelimits/search", "{\"client\": \"tenant-own\", \"limit\": 1, \"window\": \"1h\"}");
			assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "tenant-own").statusCode()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "tenant-own").statusCode()).isEqualTo(429);
			assertThat(get("/plans/search", "X-Api-Key", "tenant-neighbour").statusCode()).isEqualTo(200);
			assertThat(get("/plans/search", "X-Api-Key", "tenant-neighbour").statusCode()).isEqualTo(200);

			// {plan, client, limit}: the client's limit while it has that plan
			HttpResponse<String> inPlan = write("/actuator/ratelimits/plan-reports",
					"{\"plan\": \"pro\", \"client\": \"tenant-pro\", \"limit\": 1, \"window\": \"1h\"}");
			assertThat(inPlan.statusCode()).as(inPlan.body()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "tenant-pro").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "tenant-pro").statusCode()).isEqualTo(429);
			this.plans.assign("tenant-pro-elsewhere", "free");
			assertThat(write("/actuator/ratelimits/plan-reports",
					"{\"plan\": \"pro\", \"client\": \"tenant-pro-elsewhere\", \"limit\": 1}").statusCode())
				.isEqualTo(200);
			// free's 2: its override is pro's
			assertThat(get("/plans/reports", "X-Api-Key", "tenant-pro-elsewhere").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "tenant-pro-elsewhere").statusCode()).isEqualTo(200);
			assertThat(get("/plans/reports", "X-Api-Key", "tenant-pro-elsewhere").statusCode()).isEqualTo(429);

			// listed by the client's tag, never its key
			String listed = read("/actuator/ratelimits").body();
			assertThat(listed).doesNotContain("tenant-");
			assertThat(JsonPath.<List<Map<String, Object>>>read(listed, "$.overrides")).hasSize(3);
			assertThat(JsonPath.<List<Object>>read(listed, "$.overrides[?(@.client == '" + ownTag + "')].name"))
				.containsExactly("search");
			assertThat(JsonPath.<List<Object>>read(listed, "$.overrides[?(@.client == '" + ownTag + "')].plan"))
				.containsExactly((Object) null);
			assertThat(JsonPath.<List<Object>>read(listed, "$.overrides[?(@.client == '" + ownTag + "')].limit"))
				.containsExactly(1);
			assertThat(JsonPath.<List<Object>>read(listed, "$.overrides[?(@.client == '" + ownTag + "')].inForce"))
				.containsExactly(true);
			assertThat(JsonPath.<List<Object>>read(listed,
					"$.overrides[?(@.client == '" + ClientTags.of("key:tenant-pro") + "')].plan"))
				.containsExactly("pro");
			// the limits as configured for everyone else
			assertThat(JsonPath.<List<Integer>>read(listed, "$.limits[?(@.name == 'search' && @.plan == 'free')].limit"))
				.containsExactly(100);
			// the client's state in the shapes its requests are decided in
			String state = read("/actuator/ratelimits/search?client=key:tenant-own").body();
			assertThat(JsonPath.<List<Object>>read(state, "$.states[*].limit")).containsExactly(1, 1);
			assertThat(JsonPath.<List<Object>>read(state, "$.states[*].window")).containsExactly("PT1H", "PT1H");
			assertThat(JsonPath.<List<Object>>read(state, "$.states[*].algorithm"))
				.containsExactly("fixed-window", "sliding-log");
		}
		finally {
			for (String undo : List.of("{\"client\": \"tenant-own\", \"undo\": true}",
					"{\"plan\": \"pro\", \"client\": \"tenant-pro\", \"undo\": true}",
					"{\"plan\": \"pro\", \"client\": \"tenant-pro-elsewhere\", \"undo\": true}")) {
				String limit = undo.contains("tenant-own") ? "search" : "plan-reports";
				HttpResponse<String> undone = write("/actuator/ratelimits/" + limit, undo);
				assertThat(undone.statusCode()).as(undone.body()).isEqualTo(200);
			}
		}
		// the configured 100 a minute again
		assertThat(get("/plans/search", "X-Api-Key", "tenant-own").statusCode()).isEqualTo(200);
		assertThat(JsonPath.<List<Object>>read(read("/actuator/ratelimits").body(), "$.overrides")).isEmpty();
	}

	@Test
	void aWriteWithAFieldTheEndpointDoesNotTakeOrCannotHonourIsRefusedNamingIt() throws Exception {
		String before = read("/actuator/ratelimits").body();
		HttpResponse<String> misspelt = write("/actuator/ratelimits/search", "{\"limt\": 5}");
		assertThat(misspelt.statusCode()).isEqualTo(400);
		assertThat(misspelt.body()).contains("'limt'");
		// beside fields it takes: nothing is half done
		HttpResponse<String> beside = write("/actuator/ratelimits/search",
				"{\"client\": \"tenant-refused\", \"limit\": 5, \"windw\": \"1h\"}");
		assertThat(beside.statusCode()).isEqualTo(400);
		assertThat(beside.body()).contains("'windw'");
		// a client in a plan of a limit that no plan shapes (rule 2, bucket)
		HttpResponse<String> noPlans = write("/actuator/ratelimits/bucket",
				"{\"plan\": \"pro\", \"client\": \"tenant-refused\", \"limit\": 5}");
		assertThat(noPlans.statusCode()).isEqualTo(400);
		assertThat(noPlans.body()).contains("'plan'").contains("bucket");
		// a mode and a failure policy are the limit's own, not a client's
		HttpResponse<String> mode = write("/actuator/ratelimits/search",
				"{\"client\": \"tenant-refused\", \"mode\": \"shadow\"}");
		assertThat(mode.statusCode()).isEqualTo(400);
		assertThat(mode.body()).contains("'mode'");
		HttpResponse<String> policy = write("/actuator/ratelimits/search",
				"{\"client\": \"tenant-refused\", \"limit\": 5, \"failurePolicy\": \"fail-open\"}");
		assertThat(policy.statusCode()).isEqualTo(400);
		assertThat(policy.body()).contains("'failurePolicy'");
		// a shape the limit cannot take: what startup would say, the client named by its tag
		HttpResponse<String> capacity = write("/actuator/ratelimits/search",
				"{\"client\": \"tenant-refused\", \"capacity\": 5}");
		assertThat(capacity.statusCode()).isEqualTo(400);
		assertThat(capacity.body()).contains("(capacity)")
			.contains(ClientTags.of("key:tenant-refused"))
			.doesNotContain("tenant-refused");
		HttpResponse<String> period = write("/actuator/ratelimits/search",
				"{\"client\": \"tenant-refused\", \"algorithm\": \"token-bucket\", \"period\": \"day\"}");
		assertThat(period.statusCode()).isEqualTo(400);
		assertThat(period.body()).contains("(period)");
		HttpResponse<String> empty = write("/actuator/ratelimits/search", "{\"client\": \"\", \"limit\": 5}");
		assertThat(empty.statusCode()).isEqualTo(400);
		assertThat(empty.body()).contains("'client'");
		assertThat(write("/actuator/ratelimits/search",
				"{\"plan\": \"gold\", \"client\": \"tenant-refused\", \"limit\": 5}").statusCode())
			.isEqualTo(404);
		assertThat(read("/actuator/ratelimits").body()).isEqualTo(before);
	}

	@Test
	void aLimitsOwnOverrideTakesACalendarPeriod() throws Exception {
		try {
			HttpResponse<String> set = write("/actuator/ratelimits/bucket",
					"{\"algorithm\": \"fixed-window\", \"limit\": 7, \"period\": \"day\", \"zone\": \"Europe/Berlin\"}");
			assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
			assertThat(JsonPath.<List<Object>>read(set.body(), "$[?(@.name == 'bucket')].period")).containsExactly("day");
			assertThat(JsonPath.<List<Object>>read(set.body(), "$[?(@.name == 'bucket')].zone"))
				.containsExactly("Europe/Berlin");
			String listed = read("/actuator/ratelimits").body();
			// a calendar day's nominal length; the capacity dropped with the token bucket; the rule's usage (true)
			// follows the limit's own calendar period, now the day in Berlin
			assertThat(JsonPath.<List<Map<String, Object>>>read(listed, "$.limits[?(@.name == 'bucket')]"))
				.containsExactly(row("bucket", "ratelimit.filter.rules[2]", null, "fixed-window", 7, "PT24H", null, 1,
						null, "fail-open", "enforce", "day in Europe/Berlin"));
		}
		finally {
			assertThat(write("/actuator/ratelimits/bucket", "{\"undo\": true}").statusCode()).isEqualTo(200);
		}
	}

	@Test
	void anInvalidOverrideIsRefusedNamingThePropertyAndChangesNothing() throws Exception {
		String before = read("/actuator/ratelimits").body();
		// the rule is a fixed window: a capacity would stop startup, and stops the override
		HttpResponse<String> refused = write("/actuator/ratelimits/search", "{\"capacity\": 5}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.body()).contains("ratelimit.filter.rules[0]").contains("token bucket");
		HttpResponse<String> zero = write("/actuator/ratelimits/search", "{\"limit\": 0}");
		assertThat(zero.statusCode()).isEqualTo(400);
		assertThat(zero.body()).contains("ratelimit.filter.rules[0].limit");
		assertThat(write("/actuator/ratelimits/search", "{\"window\": \"60\"}").statusCode()).isEqualTo(400);
		assertThat(write("/actuator/ratelimits/search", "{}").statusCode()).isEqualTo(400);
		// the path names the limit; the body cannot name another
		HttpResponse<String> named = write("/actuator/ratelimits/search", "{\"name\": \"plan-reports\", \"limit\": 3}");
		assertThat(named.statusCode()).isEqualTo(400);
		assertThat(named.body()).contains("the path names");
		assertThat(write("/actuator/ratelimits/search", "{\"undo\": true, \"limit\": 5}").statusCode()).isEqualTo(400);
		assertThat(write("/actuator/ratelimits/nope", "{\"limit\": 5}").statusCode()).isEqualTo(404);
		assertThat(read("/actuator/ratelimits").body()).isEqualTo(before);
	}

	@Test
	void theEndpointTakesNoKeyRuleOrExpression() throws Exception {
		java.nio.file.Path marker = java.nio.file.Files.createTempFile("ratelimit-endpoint", ".marker");
		java.nio.file.Files.delete(marker);
		String code = "T(java.lang.Runtime).getRuntime().exec(new String[] {'touch', '" + marker + "'})";
		String before = read("/actuator/ratelimits").body();
		for (String field : List.of("key", "paths", "expression")) {
			HttpResponse<String> refused = write("/actuator/ratelimits/search",
					"{\"limit\": 50, \"" + field + "\": \"" + code + "\"}");
			assertThat(refused.statusCode()).as(field).isEqualTo(400);
			assertThat(refused.body()).contains("runs no code");
		}
		assertThat(marker).doesNotExist();
		assertThat(read("/actuator/ratelimits").body()).isEqualTo(before);
	}

	@Test
	void anOverrideDoesNotSetUsageWhichComesFromTheConfigurationAlone() throws Exception {
		// bucket: rule 2, usage true (per month in UTC)
		String before = read("/actuator/ratelimits").body();
		for (String body : List.of("{\"usage\": \"day\"}", "{\"usage\": false}", "{\"limit\": 5, \"usage\": \"true\"}",
				"{\"client\": \"tenant-usage\", \"usage\": \"month in Europe/Berlin\"}")) {
			HttpResponse<String> refused = write("/actuator/ratelimits/bucket", body);
			assertThat(refused.statusCode()).as(body).isEqualTo(400);
			assertThat(refused.body()).as(body)
				.contains("'usage' is not changed through the ratelimits endpoint")
				.contains("comes only from the application's configuration");
		}
		// a concurrency limit records no usage: what startup would say
		HttpResponse<String> leases = write("/actuator/ratelimits/bucket", "{\"algorithm\": \"concurrency\"}");
		assertThat(leases.statusCode()).isEqualTo(400);
		assertThat(leases.body()).contains("records no usage");
		// nor turned on for a limit that records none
		HttpResponse<String> search = write("/actuator/ratelimits/search", "{\"usage\": \"true\"}");
		assertThat(search.statusCode()).isEqualTo(400);
		assertThat(search.body()).contains("'usage'");
		assertThat(read("/actuator/ratelimits").body()).isEqualTo(before);
	}

	/**
	 * A GET of the endpoint on a connection of its own. On WebFlux, Actuator answers from another thread than the
	 * connection's event loop, and Reactor Netty 1.3.6 can then leave a keep-alive connection's next request
	 * unanswered (reactor/reactor-netty#4361); the application's own requests must not queue behind that.
	 */
	private HttpResponse<String> read(String path) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET());
	}

	/** A DELETE of the endpoint on a connection of its own, as {@link #read}. */
	private HttpResponse<String> reset(String path) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).DELETE());
	}

	/** A POST of the endpoint with a JSON body, on a connection of its own, as {@link #read}. */
	private HttpResponse<String> write(String path, String json) throws Exception {
		return send(HttpRequest.newBuilder(uri(path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)));
	}

	private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		// a client of its own, whose connection no other request reuses (it is dropped with the client)
		return HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.build()
			.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static Map<String, Object> row(String name, String source, String plan, String algorithm, long limit,
			String window, Integer capacity, long cost, String key, String failurePolicy, String mode) {
		return row(name, source, plan, algorithm, limit, window, capacity, cost, key, failurePolicy, mode, null);
	}

	private static Map<String, Object> row(String name, String source, String plan, String algorithm, long limit,
			String window, Integer capacity, long cost, String key, String failurePolicy, String mode, String usage) {
		Map<String, Object> row = new java.util.LinkedHashMap<>();
		row.put("name", name);
		row.put("source", source);
		row.put("plan", plan);
		row.put("algorithm", algorithm);
		row.put("limit", (int) limit);
		row.put("window", window);
		row.put("capacity", capacity);
		row.put("cost", (int) cost);
		row.put("key", key);
		row.put("failurePolicy", failurePolicy);
		row.put("mode", mode);
		row.put("usage", usage);
		return row;
	}

}
