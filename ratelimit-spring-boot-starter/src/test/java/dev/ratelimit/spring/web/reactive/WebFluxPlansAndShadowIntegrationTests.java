package dev.ratelimit.spring.web.reactive;

import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.spring.test.app.PlansConfiguration;
import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;
import dev.ratelimit.spring.web.PlansAndShadowContract;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link PlansAndShadowContract} on WebFlux, with BlockHound watching. */
@SpringBootTest(classes = { RateLimitWebFluxTestApplication.class, PlansConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "ratelimit.key-prefix=plans-webflux:" })
@ExtendWith(NoBlocking.class)
class WebFluxPlansAndShadowIntegrationTests extends PlansAndShadowContract {

}
