package dev.ratelimit.benchmark.gateway;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Cloud Gateway (Gateway Server WebFlux, on Reactor Netty) with the starter and {@code
 * ratelimit-spring-cloud-gateway}, as a user who adds them has it. Its routes ({@code gateway.properties} in this
 * package's resources) proxy to {@code benchmark.backend}: one without a limit, one with {@code RequestRateLimiter} on
 * the gateway's own {@code RedisRateLimiter}, one with {@code RequestRateLimiter} on the starter's
 * {@code rateLimitGatewayRateLimiter}, both with the same {@code redis-rate-limiter} arguments (a token bucket no run
 * empties) and the same key.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BenchmarkGateway {

	/** The request header the routes' limits are keyed by: one key for every request of a run, as wrk sends it. */
	public static final String KEY_HEADER = "X-Api-Key";

	/** The routes' paths: each proxies what follows its first segment to the backend. */
	public static final String PROXY_ONLY = "/proxy-only";

	public static final String GATEWAYS_OWN = "/gateways-own";

	public static final String STARTERS = "/starters";

	/**
	 * Starts the gateway on a free port.
	 * @param backend the address the routes proxy to, such as {@code http://127.0.0.1:8080}
	 * @param properties more properties (the Redis to use, auto-configurations to leave out)
	 */
	public static ConfigurableApplicationContext start(String backend, String... properties) {
		return new SpringApplicationBuilder(BenchmarkGateway.class).web(WebApplicationType.REACTIVE)
			.properties("spring.config.location=classpath:/dev/ratelimit/benchmark/gateway/gateway.properties",
					"benchmark.backend=" + backend, "server.port=0")
			.properties(properties)
			.run();
	}

	/** The key of {@code RequestRateLimiter}'s routes ({@code key-resolver: "#{@benchmarkKeyResolver}"}). */
	@Bean
	KeyResolver benchmarkKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(KEY_HEADER));
	}

}
