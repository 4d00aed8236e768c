package dev.ratelimit.spring.gateway;

/** The {@code RateLimited} route filter on Gateway Server MVC (Tomcat). */
class MvcRouteFilterIntegrationTests extends RouteFilterContract {

	@Override
	Gateway gateway(String... properties) {
		return Gateway.mvc(new Class<?>[] { GatewayTestApplication.class }, properties);
	}

	@Override
	boolean noticesAClientGoneWhileTheBackendHolds() {
		return false;
	}

	@Override
	String routes() {
		return "spring.cloud.gateway.server.webmvc.routes";
	}

}
