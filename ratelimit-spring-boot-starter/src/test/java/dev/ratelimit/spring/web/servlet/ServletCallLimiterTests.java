package dev.ratelimit.spring.web.servlet;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.autoconfigure.RateLimitProperties;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.KeyVariables;
import dev.ratelimit.spring.limits.LimitResolver;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The startup check of Spring MVC's limited handlers: a concurrency limit whose key reads the handler's arguments is
 * decided when the handler is called and given back when it returns, which is too early for a response that goes on
 * after that.
 */
class ServletCallLimiterTests {

	private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

	private final ServletCallLimiter limiter = new ServletCallLimiter(this.beans.getBeanProvider(
			dev.ratelimit.spring.enforce.PermitWaiter.class));

	@Test
	void aConcurrencyLimitKeyedOnArgumentsOfAHandlerThatRespondsLaterStopsStartup() throws Exception {
		for (String handler : List.of("deferred", "streamedEntity")) {
			assertThatIllegalStateException().isThrownBy(() -> check(handler))
				.withMessageContaining("concurrency limit 'exports'")
				.withMessageContaining("key the limit on #request");
		}
	}

	@Test
	void aConcurrencyLimitKeyedOnArgumentsOfAHandlerThatAnswersOnReturnStarts() {
		assertThatNoException().isThrownBy(() -> check("plain"));
		assertThatNoException().isThrownBy(() -> check("entity"));
	}

	private void check(String name) throws Exception {
		Method method = Handlers.class.getDeclaredMethod(name, String.class);
		ConfiguredLimit limit = new LimitResolver(new RateLimitProperties(), 1, new MockEnvironment(), this.beans)
			.fromAnnotation(method.getAnnotation(RateLimited.class), "Handlers." + name, "Handlers." + name,
					KeyVariables.of(method));
		this.limiter.check("Handlers." + name, method, List.of(limit));
	}

	@SuppressWarnings("unused")
	static class Handlers {

		@GetMapping("/deferred")
		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2, key = "#customer")
		DeferredResult<String> deferred(String customer) {
			return new DeferredResult<>();
		}

		@GetMapping("/streamed")
		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2, key = "#customer")
		ResponseEntity<StreamingResponseBody> streamedEntity(String customer) {
			return ResponseEntity.ok((out) -> {
			});
		}

		@GetMapping("/plain")
		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2, key = "#customer")
		String plain(String customer) {
			return customer;
		}

		@GetMapping("/entity")
		@RateLimited(name = "exports", algorithm = "concurrency", limit = 2, key = "#customer")
		ResponseEntity<String> entity(String customer) {
			return ResponseEntity.ok(customer);
		}

	}

}
