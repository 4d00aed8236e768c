package dev.ratelimit.spring.gateway;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Reactor Netty resources of each test gateway's own: with the global ones (Boot's default), closing one gateway of
 * the test JVM would stop the event loops of the others.
 */
@Configuration(proxyBeanMethods = false)
class WebFluxResources {

	@Bean
	ReactorResourceFactory reactorResourceFactory() {
		ReactorResourceFactory resources = new ReactorResourceFactory();
		resources.setUseGlobalResources(false);
		return resources;
	}

}
