package dev.ratelimit.spring.observation;

import dev.ratelimit.spring.test.app.RateLimitWebFluxTestApplication;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * {@link ObservationContract} on WebFlux (Reactor Netty), with Reactor's automatic context propagation off (its
 * default): the request's observation is only in the Reactor context, where the starter finds it.
 */
@SpringBootTest(classes = RateLimitWebFluxTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=reactive")
class WebFluxObservationIntegrationTests extends ObservationContract {

}
