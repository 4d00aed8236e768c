package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.ClockedLimiterConfiguration;
import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;
import dev.ratelimit.spring.web.RetryAfterContract;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link RetryAfterContract} on WebFlux, with BlockHound watching. */
@SpringBootTest(classes = { RateLimitWebFluxTestApplication.class, ClockedLimiterConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.key-prefix=http-clocked-webflux:" })
@ExtendWith(NoBlocking.class)
class WebFluxRetryAfterIntegrationTests extends RetryAfterContract {

}
