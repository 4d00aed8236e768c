package dev.ratelimit.spring.redis;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.app.XClient;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application of the failover tests: one endpoint, {@code GET /limited}, limited to {@value #LIMIT} per hour per
 * {@code X-Client}, failing open (the default policy), on Spring MVC; started as a real server on a free port.
 * Denials are not remembered ({@code ratelimit.denials.remember=false}), so that every 429 is Redis's decision of
 * that request, never this instance's memory of an earlier one.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(FailoverApplication.LimitedController.class)
class FailoverApplication {

	static final String LIMIT_NAME = "failover";

	static final int LIMIT = 3;

	/** {@code RateLimit-Policy} of a decision of Redis (a local one would show the share). */
	static final String POLICY = "\"" + LIMIT_NAME + "\";q=" + LIMIT + ";w=3600";

	/**
	 * Starts an instance with the limiter's client library {@code client} ({@code lettuce} or {@code jedis}) and
	 * {@code redis}, the application's {@code spring.data.redis.*} properties.
	 */
	static Instance start(String name, String client, String... redis) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.web-application-type=servlet", "--ratelimit.redis.client=" + client,
				"--ratelimit.denials.remember=false"));
		for (String property : redis) {
			arguments.add("--" + property);
		}
		ConfigurableApplicationContext context = new SpringApplicationBuilder(FailoverApplication.class)
			.run(arguments.toArray(String[]::new));
		return new Instance(name, context);
	}

	@Bean
	XClient xClient() {
		return new XClient();
	}

	/** A running instance, named for reports ({@code lettuce-1}). */
	record Instance(String name, ConfigurableApplicationContext context) implements AutoCloseable {

		String baseUrl() {
			return "http://127.0.0.1:" + ((WebServerApplicationContext) this.context).getWebServer().getPort();
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	@RestController
	static class LimitedController {

		@RateLimited(name = LIMIT_NAME, limit = LIMIT, window = "1h", key = "@xClient.of(#request)")
		@GetMapping("/limited")
		String limited() {
			return "limited";
		}

	}

}
