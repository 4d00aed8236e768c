package dev.ratelimit.openapi;

import org.springframework.boot.WebApplicationType;

/** {@link OpenApiContract} on WebFlux (Reactor Netty), with springdoc-openapi-starter-webflux-api. */
class WebFluxOpenApiIntegrationTests extends OpenApiContract {

	@Override
	WebApplicationType type() {
		return WebApplicationType.REACTIVE;
	}

}
