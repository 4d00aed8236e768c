package dev.ratelimit.sample;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import dev.ratelimit.core.RateLimiter;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@code --compare}: starts the application without its web server, runs {@link ReferenceComparison} through the
 * {@link RateLimiter} bean, prints {@link ComparisonReport} to standard output and ends. Redis is found as in the web
 * application: {@code spring.data.redis.url}, {@code REDIS_URL}, or an embedded server. With
 * {@code ratelimit.store=in-memory} no Redis is started or contacted: the comparison runs on the in-memory limiter,
 * and the report has no Redis memory to show.
 */
final class ComparisonCommand {

	static final String FLAG = "--compare";

	private ComparisonCommand() {
	}

	/** @return the process exit code: 0 when the comparison ran, 1 when it could not */
	static int run(String[] args) {
		// A prefix of this run's own: earlier runs' state at the same explicit times would change the counts.
		String keyPrefix = "rl-compare:" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()) + ":";
		String[] applicationArgs = Stream
			.concat(Arrays.stream(args).filter((arg) -> !arg.equals(FLAG)),
					Stream.of("--ratelimit.key-prefix=" + keyPrefix))
			.toArray(String[]::new);
		SpringApplicationBuilder application = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			// A one-shot command waits for a loaded Redis rather than failing open: the request timeout of a web
			// application (250 ms) is no measure for it. Defaults, so that any configured value wins.
			.properties("logging.level.root=warn", "ratelimit.redis.timeout=10s", "ratelimit.redis.connect-timeout=10s");
		try (ConfigurableApplicationContext context = application.run(applicationArgs)) {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			String report;
			if (InMemoryStore.isSelected(context.getEnvironment())) {
				// Nothing in Redis to measure or remove: the limiter's state lives, and expires, in this process.
				report = ComparisonReport.formatInMemory(new ReferenceComparison(limiter, null, keyPrefix).run());
			}
			else {
				RedisInspector redis = new RedisInspector(limitersRedis(context));
				ReferenceComparison.Results results = new ReferenceComparison(limiter, redis, keyPrefix).run();
				report = ComparisonReport.format(results, describeRedis(context), redis.version(), keyPrefix);
			}
			System.out.print(report);
			System.out.flush();
			return 0;
		}
		catch (RuntimeException ex) {
			System.err.println("The comparison failed: " + ex);
			return 1;
		}
	}

	/**
	 * The Redis the limiter writes to, for reading and removing the comparison's keys: the application's, or the
	 * limiter's own when {@code ratelimit.redis.url} names one.
	 */
	private static StringRedisTemplate limitersRedis(ConfigurableApplicationContext context) {
		String url = context.getEnvironment().getProperty("ratelimit.redis.url");
		if (url == null) {
			return context.getBean(StringRedisTemplate.class);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				LettuceConnectionFactory.createRedisConfiguration(url));
		factory.afterPropertiesSet();
		factory.start();
		context.addApplicationListener((ContextClosedEvent event) -> factory.destroy());
		return new StringRedisTemplate(factory);
	}

	private static String describeRedis(ConfigurableApplicationContext context) {
		Environment environment = context.getEnvironment();
		String ownUrl = environment.getProperty("ratelimit.redis.url");
		if (ownUrl != null) {
			return ownUrl.replaceAll("//[^@/]*@", "//");
		}
		String embeddedPort = environment.getProperty(EmbeddedRedisListener.EMBEDDED_PORT_PROPERTY);
		if (embeddedPort != null) {
			return EmbeddedRedisServer.HOST + ":" + embeddedPort + " (embedded redis-server, started for this run)";
		}
		DataRedisConnectionDetails details = context.getBeanProvider(DataRedisConnectionDetails.class).getIfAvailable();
		if (details != null && details.getSentinel() == null && details.getCluster() == null
				&& details.getStandalone() != null) {
			return details.getStandalone().getHost() + ":" + details.getStandalone().getPort();
		}
		return "the configured Redis";
	}

}
