package dev.ratelimit.sample;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The ratelimit demo application. {@code java -jar ratelimit-sample-app.jar} serves the rate-limited endpoints
 * listed at {@code /}; with {@code --compare} it prints the reference comparison of the four algorithms instead and
 * exits. Without {@code spring.data.redis.url} (or {@code REDIS_URL}) it runs its own embedded Redis; with
 * {@code --ratelimit.store=in-memory} it needs no Redis at all and counts the limits in its own memory.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		if (Arrays.asList(args).contains(ComparisonCommand.FLAG)) {
			System.exit(ComparisonCommand.run(args));
		}
		SpringApplication.run(SampleApplication.class, args);
	}

}
