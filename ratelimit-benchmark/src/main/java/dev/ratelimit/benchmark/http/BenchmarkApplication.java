package dev.ratelimit.benchmark.http;

import java.util.List;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.RateLimited;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application {@link HttpBenchmark} loads: one trivial endpoint, served unlimited, after one Redis round trip
 * (the floor of any limit on Redis), limited by annotation and by filter rule, and denied. Its properties are
 * {@code benchmark.properties} in this package's resources, plus what {@link HttpBenchmark} passes.
 *
 * <p>
 * Spring Cloud Gateway is on the class path for the benchmark's gateway: here it is off
 * ({@code spring.cloud.gateway.server.webflux.enabled=false}, since it refuses to start beside Spring MVC), and so is
 * its Redis configuration, which that switch leaves on and which needs the gateway's beans.
 */
@SpringBootApplication(excludeName = "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration")
public class BenchmarkApplication {

	/** One command in a script: the limiter's own round trip with almost no work in it. */
	static final LuaScript ONE_COMMAND = LuaScript.of("return { redis.call('EXISTS', KEYS[1]) }");

	@RestController
	static class Endpoints {

		private final StringRedisTemplate redis;

		private final ScriptExecutor limiterClient;

		Endpoints(StringRedisTemplate redis, ScriptExecutor limiterClient) {
			this.redis = redis;
			this.limiterClient = limiterClient;
		}

		@GetMapping("/unlimited")
		String unlimited() {
			return "ok";
		}

		/** One {@code PING} through the application's own Redis client (Spring Data Redis on Lettuce). */
		@GetMapping("/ping")
		String ping() {
			return this.redis.execute((RedisCallback<String>) (connection) -> connection.ping());
		}

		/** One script call through the limiter's own client: the round trip every decision makes. */
		@GetMapping("/script")
		String script() {
			return this.limiterClient.execute(ONE_COMMAND, List.of("bench:script"), List.of()).toString();
		}

		/** A token bucket no run reaches, on the client's IP. */
		@RateLimited(name = "bench-annotated", algorithm = "token-bucket", limit = 1_000_000_000, window = "1s")
		@GetMapping("/annotated")
		String annotated() {
			return "ok";
		}

		/** A token bucket no run reaches, on the client's API key (the typical instance's scenario). */
		@RateLimited(name = "bench-typical", algorithm = "token-bucket", limit = 1_000_000_000, window = "1s",
				key = "#header('" + HttpBenchmark.API_KEY_HEADER + "')")
		@GetMapping("/typical")
		String typical() {
			return "ok";
		}

		/** Limited by the rule {@code bench-rule} (application.properties). */
		@GetMapping("/rule")
		String rule() {
			return "ok";
		}

		/** One request per hour: the first is admitted, every later one denied. */
		@RateLimited(name = "bench-denied", algorithm = "token-bucket", limit = 1, window = "1h")
		@GetMapping("/denied")
		String denied() {
			return "ok";
		}

	}

}
