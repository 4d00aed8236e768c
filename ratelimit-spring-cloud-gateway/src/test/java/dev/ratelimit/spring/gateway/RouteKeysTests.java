package dev.ratelimit.spring.gateway;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Route keys read the request and nothing else, whatever a route definition posted over HTTP says. */
class RouteKeysTests {

	private final RouteKeyRequest request = new RouteKeyRequest(Map.of("X-Api-Key", "k-42")::get,
			Map.of("tenant", "acme")::get, Map.of("session", "s-1")::get, "GET", "/api/items", "api.example",
			"203.0.113.7");

	@Test
	void aKeyReadsTheRequestThePrincipalAndTheResolvedKey() {
		EvaluationContext context = RouteKeys.context(this.request, () -> "ann", "resolved");
		assertThat(value("#request.getHeader('X-Api-Key')", context)).isEqualTo("k-42");
		assertThat(value("#request.getParameter('tenant') + ':' + #request.getCookie('session')", context))
			.isEqualTo("acme:s-1");
		assertThat(value("#request.host + #request.path + #request.remoteAddr", context))
			.isEqualTo("api.example/api/items203.0.113.7");
		assertThat(value("#principal?.name", context)).isEqualTo("ann");
		assertThat(value("#key", context)).isEqualTo("resolved");
		assertThat(value("#principal?.name", RouteKeys.context(this.request, null, null))).isNull();
	}

	@Test
	void theKeyHelpersReadTheRequestAsOnTheStartersRules() {
		EvaluationContext context = RouteKeys.context(new RouteKeyRequest(Map.of("X-Api-Key", "k-42")::get,
				Map.of("tenant", "acme")::get, (name) -> null, "GET", "/api/items", "api.example", "::1"), () -> "ann",
				null);
		assertThat(value("#header('X-Api-Key') + ':' + #queryParam('tenant')", context)).isEqualTo("k-42:acme");
		assertThat(value("#clientIp()", context)).as("canonical, as the starter keys an address")
			.isEqualTo("0:0:0:0:0:0:0:1");
		assertThat(value("#principalName()", context)).isEqualTo("ann");
		assertThat(value("#header('X-Missing')", context)).isNull();
		assertThat(value("#principalName()", RouteKeys.context(this.request, null, null))).isNull();
	}

	@Test
	void aKeyThatNamesATypeCreatesAnObjectReachesABeanOrAssignsIsRefused() {
		for (String key : new String[] { "#exec('touch /tmp/x')", "#header()", "#clientIp",
				"T(java.lang.Runtime).getRuntime().exec('touch /tmp/x')",
				"new java.io.File('/tmp/x').delete()", "@environment.getProperty('secret')", "#request = null",
				"#root.class", "#this", "#systemProperties['user.home']" }) {
			assertThatIllegalArgumentException().as(key).isThrownBy(() -> RouteKeys.parse(key));
		}
	}

	@Test
	void aKeyThatReachesATypeThroughAnObjectFailsAsItIsEvaluated() {
		Expression key = RouteKeys
			.parse("#request.getClass().forName('java.lang.Runtime').getRuntime().exec('touch /tmp/x')");
		assertThatException().isThrownBy(() -> key.getValue(RouteKeys.context(this.request, null, null)))
			.isInstanceOf(EvaluationException.class);
		Expression loader = RouteKeys.parse("#request.getClass().getClassLoader()");
		assertThatException().isThrownBy(() -> loader.getValue(RouteKeys.context(this.request, null, null)))
			.isInstanceOf(EvaluationException.class);
	}

	@Test
	void anEmptyKeyIsTheClientsAddress() {
		assertThat(RouteKeys.parse(null)).isNull();
		assertThat(RouteKeys.parse(" ")).isNull();
	}

	private static Object value(String key, EvaluationContext context) {
		return RouteKeys.parse(key).getValue(context);
	}

}
