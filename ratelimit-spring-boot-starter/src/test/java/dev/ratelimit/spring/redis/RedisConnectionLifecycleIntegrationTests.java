package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.autoconfigure.StarterAutoConfigurations;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter connects in the application's lifecycle, not as its beans are built: the connection is open and the
 * script loaded when the web server starts (its phase, {@code SMART_LIFECYCLE_PHASE - 1024}, stands in for it), and
 * it stays open until the web server has stopped, after graceful shutdown; then it closes, and a restarted context
 * opens it again.
 */
class RedisConnectionLifecycleIntegrationTests {

	private static final String LIMITER = " name=ratelimit ";

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void theConnectionOpensBeforeTheWebServerStartsAndClosesAfterItStops(String client) {
		try (TestRedis redis = TestRedis.start(); Jedis jedis = new Jedis(redis.host(), redis.port())) {
			new ApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all())
				.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
				.withPropertyValues("ratelimit.redis.url=" + redis.url(), "ratelimit.redis.client=" + client)
				// built after the executor: it sees what building the executor did
				.withBean("webServer", WebServerStandIn.class, () -> new WebServerStandIn(jedis),
						(definition) -> definition.setDependsOn("rateLimitScriptExecutor"))
				.run((context) -> {
					assertThat(context).hasNotFailed().hasSingleBean(ScriptExecutor.class);
					WebServerStandIn webServer = context.getBean(WebServerStandIn.class);
					assertThat(webServer.clientsWhenBuilt).as("building the executor connects nothing")
						.doesNotContain(LIMITER);
					assertThat(webServer.clientsWhenStarted).as("connected before the web server starts")
						.contains(LIMITER);
					assertThat(webServer.scriptLoadedWhenStarted).as("the script loaded before the web server starts")
						.isTrue();
					context.stop();
					assertThat(webServer.clientsWhenStopped).as("still connected while the web server stops")
						.contains(LIMITER);
					assertThat(awaitLimiterClosed(jedis)).as("closed once the web server has stopped").isTrue();
					context.start();
					assertThat(webServer.clientsWhenStarted).as("connected again on a restart").contains(LIMITER);
				});
		}
	}

	/** Whether the limiter's connections are gone within 10 s: the server notices a closed connection on its own time. */
	private static boolean awaitLimiterClosed(Jedis jedis) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (jedis.clientList().contains(LIMITER)) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			Thread.sleep(10);
		}
		return true;
	}

	/** Stands in for the web server: its lifecycle phase, and what it sees of the limiter's connection. */
	static final class WebServerStandIn implements SmartLifecycle {

		private final Jedis jedis;

		final String clientsWhenBuilt;

		volatile String clientsWhenStarted;

		volatile boolean scriptLoadedWhenStarted;

		volatile String clientsWhenStopped;

		private volatile boolean running;

		WebServerStandIn(Jedis jedis) {
			this.jedis = jedis;
			this.clientsWhenBuilt = jedis.clientList();
		}

		@Override
		public void start() {
			this.clientsWhenStarted = this.jedis.clientList();
			this.scriptLoadedWhenStarted = this.jedis.scriptExists(LuaScript.rateLimit(List.of(Algorithm.TOKEN_BUCKET)).sha1());
			this.running = true;
		}

		@Override
		public void stop() {
			this.clientsWhenStopped = this.jedis.clientList();
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		/** The phase of Spring Boot's web server: it starts after, and stops before, its graceful shutdown's. */
		@Override
		public int getPhase() {
			return WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE - 1024;
		}

	}

}
