package dev.ratelimit.spring.web;

import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.Principal;
import java.time.Duration;

import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.MissingKeyPolicy;
import dev.ratelimit.spring.enforce.BackgroundCall;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.RateLimitHeaderWriter;
import dev.ratelimit.spring.enforce.RateLimitResponder;
import dev.ratelimit.spring.web.reactive.ExchangeLimitedRequest;
import dev.ratelimit.spring.web.servlet.ServletLimitedRequest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.http.HttpMethod;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key helpers ({@code #header}, {@code #queryParam}, {@code #clientIp}, {@code #principalName}) read the same
 * value from the same request on Spring MVC and on WebFlux, and {@code #header(name)} exactly what the servlet
 * expression {@code #request.getHeader(name)} read, so a key moved to the helper keeps every client's budget (the
 * client key is {@code key:} and that value). Outside a request they read nothing; a method's parameter named like a
 * helper stays the argument.
 */
class KeyHelpersTests {

	private static final Principal ALICE = () -> "alice";

	private final ClientKeyResolver keys = new ClientKeyResolver(new DefaultListableBeanFactory(),
			MissingKeyPolicy.CLIENT_IP,
			new RateLimitResponder(new RateLimitHeaderWriter(HeaderStyle.IETF), Duration.ofSeconds(1)));

	@Test
	void theHelpersReadTheSameOnBothStacksAsTheServletExpressionsDid() {
		MockHttpServletRequest servlet = new MockHttpServletRequest("GET", "/orders");
		servlet.addHeader("X-Api-Key", "k-1");
		servlet.addHeader("X-Api-Key", "k-2");
		servlet.setQueryString("tenant=acme%20corp+eu&page=2");
		servlet.setRemoteAddr("::1");
		EvaluationContext mvc = this.keys.context(new ServletLimitedRequest(servlet, null), servlet, ALICE, null);

		// the same request line, as the client sent it
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest
			.method(HttpMethod.GET, URI.create("/orders?tenant=acme%20corp+eu&page=2"))
			.header("X-Api-Key", "k-1", "k-2")
			.remoteAddress(new InetSocketAddress("::1", 40000)));
		EvaluationContext webFlux = this.keys.context(new ExchangeLimitedRequest(exchange), exchange.getRequest(),
				ALICE, exchange);

		assertThat(value("#header('X-Api-Key')", mvc)).isEqualTo(value("#request.getHeader('X-Api-Key')", mvc))
			.isEqualTo("k-1");
		assertThat(value("#header('X-Api-Key')", webFlux)).isEqualTo("k-1");
		assertThat(value("#header('x-api-key')", mvc)).as("field names ignore case").isEqualTo("k-1");
		assertThat(value("#header('x-api-key')", webFlux)).isEqualTo("k-1");
		assertThat(value("#header('X-Missing')", mvc)).isNull();
		assertThat(value("#header('X-Missing')", webFlux)).isNull();

		assertThat(value("#queryParam('tenant')", mvc)).isEqualTo("acme corp eu");
		assertThat(value("#queryParam('tenant')", webFlux)).isEqualTo("acme corp eu");
		assertThat(value("#queryParam('page')", mvc)).isEqualTo(value("#queryParam('page')", webFlux)).isEqualTo("2");
		assertThat(value("#queryParam('missing')", mvc)).isNull();
		assertThat(value("#queryParam('missing')", webFlux)).isNull();

		assertThat(value("#clientIp()", mvc)).as("canonical, as the address fallback keys it")
			.isEqualTo(value("#clientIp()", webFlux))
			.isEqualTo("0:0:0:0:0:0:0:1");
		assertThat(value("#principalName()", mvc)).isEqualTo(value("#principalName()", webFlux)).isEqualTo("alice");
	}

	@Test
	void aFormBodyIsNotAQueryParameterOnSpringMvc() {
		MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/login");
		servlet.setContentType("application/x-www-form-urlencoded");
		servlet.addParameter("tenant", "from-the-body");
		EvaluationContext mvc = this.keys.context(new ServletLimitedRequest(servlet, null), servlet, null, null);

		assertThat(value("#queryParam('tenant')", mvc)).isNull();
		assertThat(value("#principalName()", mvc)).as("no principal").isNull();
	}

	@Test
	void outsideARequestTheHelpersReadNothing() throws Exception {
		Method method = Jobs.class.getDeclaredMethod("run", String.class);
		EvaluationContext context = this.keys.context(new BackgroundCall(), null, null, null, method,
				new Object[] { "nightly" });

		assertThat(value("#header('X-Api-Key')", context)).isNull();
		assertThat(value("#queryParam('tenant')", context)).isNull();
		assertThat(value("#clientIp()", context)).isNull();
		assertThat(value("#principalName()", context)).isNull();
		assertThat(value("#job", context)).isEqualTo(value("#p0", context)).isEqualTo(value("#a0", context))
			.isEqualTo("nightly");
	}

	@Test
	void aParameterNamedLikeAHelperStaysTheArgumentEvenWhenNull() throws Exception {
		Method method = Jobs.class.getDeclaredMethod("search", String.class);
		MockHttpServletRequest servlet = new MockHttpServletRequest("GET", "/search");
		servlet.setRemoteAddr("203.0.113.7");

		EvaluationContext given = this.keys.context(new ServletLimitedRequest(servlet, null), servlet, null, null,
				method, new Object[] { "shoes" });
		EvaluationContext absent = this.keys.context(new ServletLimitedRequest(servlet, null), servlet, null, null,
				method, new Object[] { null });

		assertThat(value("#clientIp", given)).isEqualTo("shoes");
		assertThat(value("#clientIp", absent)).as("the argument, null: never the helper itself").isNull();
	}

	@Test
	void outsideARequestAParameterNamedRequestIsWhatRequestReads() throws Exception {
		Method method = Jobs.class.getDeclaredMethod("order", Order.class);
		EvaluationContext context = this.keys.context(new BackgroundCall(), null, null, null, method,
				new Object[] { new Order("c-7") });

		assertThat(value("#request.customer", context)).isEqualTo("c-7");
	}

	private static Object value(String expression, EvaluationContext context) {
		return new SpelExpressionParser().parseExpression(expression).getValue(context);
	}

	record Order(String customer) {
	}

	static class Jobs {

		void run(String job) {
		}

		void search(String clientIp) {
		}

		void order(Order request) {
		}

	}

}
