package dev.ratelimit.dropin.webflux;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.dropin.host.OwnershipReport;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.stereotype.Component;

/**
 * host-app's report ({@link OwnershipReport}: the Redis beans, the connection factory's settings, the health
 * contributors, every bean, the Spring Boot version, a 1 s {@code BLPOP} through the {@code StringRedisTemplate}),
 * and the reactive side of the application:
 * <ul>
 * <li>{@code web.applicationContext}, {@code web.server}: the classes of its application context and of its web
 * server (a reactive one on Reactor Netty);</li>
 * <li>{@code beans.ReactiveRedisTemplate}, {@code beans.ReactiveStringRedisTemplate},
 * {@code beans.SecurityWebFilterChain}: the beans of these types, {@code name:class, ...};</li>
 * <li>{@code reactive.blpop.ping}, {@code reactive.blpop.outcome}, {@code reactive.blpop.elapsedMs}: its own 1 s
 * {@code BLPOP} on an empty list through its {@code ReactiveStringRedisTemplate}, waited for on the runner's thread
 * (not an event loop).</li>
 * </ul>
 */
@Component
class ReactiveOwnershipReport extends OwnershipReport {

	/** Bound of each wait for a reactive command: an answer or an error long before, in every healthy run. */
	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContext context;

	private final ObjectProvider<ReactiveStringRedisTemplate> reactiveRedis;

	ReactiveOwnershipReport(ApplicationContext context, Environment environment,
			ObjectProvider<StringRedisTemplate> redis, ObjectProvider<HealthContributorRegistry> health,
			ObjectProvider<ReactiveStringRedisTemplate> reactiveRedis) {
		super(context, environment, redis, health);
		this.context = context;
		this.reactiveRedis = reactiveRedis;
	}

	@Override
	protected void describeMore(Map<String, String> report) {
		report.put("web.applicationContext", typeName(this.context.getClass()));
		report.put("web.server", (this.context instanceof WebServerApplicationContext web && web.getWebServer() != null)
				? typeName(web.getWebServer().getClass()) : "none");
		beansOfType(report, ReactiveRedisTemplate.class);
		beansOfType(report, ReactiveStringRedisTemplate.class);
		beansOfType(report, SecurityWebFilterChain.class);
		reactiveBlockingPop(report);
	}

	/** {@code BLPOP} on a list that does not exist, for 1 s, through the application's reactive template. */
	private void reactiveBlockingPop(Map<String, String> report) {
		ReactiveStringRedisTemplate template = this.reactiveRedis.getIfAvailable();
		if (template == null) {
			report.put("reactive.blpop.outcome", "no ReactiveStringRedisTemplate");
			return;
		}
		String key = "drop-in:empty-list:" + UUID.randomUUID();
		// Connected first, so that the time measured is the command's.
		try {
			report.put("reactive.blpop.ping",
					String.valueOf(template.execute(ReactiveRedisConnection::ping).next().block(WAIT)));
		}
		catch (RuntimeException ex) {
			report.put("reactive.blpop.ping", "threw " + causes(ex));
		}
		long start = System.nanoTime();
		String outcome;
		try {
			String popped = template.opsForList().leftPop(key, BLOCKING_POP).block(WAIT);
			outcome = "returned " + popped;
		}
		catch (RuntimeException ex) {
			outcome = "threw " + causes(ex);
		}
		report.put("reactive.blpop.elapsedMs", String.valueOf(Duration.ofNanos(System.nanoTime() - start).toMillis()));
		report.put("reactive.blpop.outcome", outcome);
	}

}
