package dev.ratelimit.spring.gateway;

/** The {@code RateLimited} route filter on Gateway Server WebFlux (Reactor Netty). */
class WebFluxRouteFilterIntegrationTests extends RouteFilterContract {

	@Override
	Gateway gateway(String... properties) {
		return Gateway.webflux(new Class<?>[] { GatewayTestApplication.class }, properties);
	}

	@Override
	boolean noticesAClientGoneWhileTheBackendHolds() {
		return true;
	}

	@Override
	String routes() {
		return "spring.cloud.gateway.server.webflux.routes";
	}

}
