package dev.ratelimit.sample;

import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Gives the sample a Redis server with nothing to configure. When no Redis is configured, starts an
 * {@link EmbeddedRedisServer} as soon as the environment is ready, before any bean (the Redis connection factory
 * among them) exists, and points {@code spring.data.redis.host}/{@code port} at it. The server stops with the
 * application: after every bean is destroyed (so the connection pool closes against a live server), when startup
 * fails, and at JVM shutdown.
 *
 * <p>
 * Redis counts as configured when {@code spring.data.redis.url}, {@code host}, {@code port}, {@code sentinel.*} or
 * {@code cluster.nodes} is set, in any property source. The {@code REDIS_URL} environment variable, the usual name on
 * hosting platforms, is read as {@code spring.data.redis.url}. {@code sample.redis.embedded=false} turns the embedded
 * server off (Spring Boot's default, {@code localhost:6379}, applies then).
 *
 * <p>
 * With {@code ratelimit.store=in-memory} the limits are counted in this instance's memory and the sample needs no
 * Redis: no server is started, whatever is configured, and the application logs that once. (Spring Boot's own
 * Redis connection factory still exists then, unused: it connects only when used.)
 *
 * <p>
 * Registered in {@code META-INF/spring.factories}: a bean would come too late, after the connection factory could
 * have been built.
 */
public class EmbeddedRedisListener implements ApplicationListener<ApplicationEvent>, Ordered {

	/** Set to the embedded server's port, so that the application can tell which Redis it uses. */
	static final String EMBEDDED_PORT_PROPERTY = "sample.redis.embedded-port";

	private static final List<String> REDIS_PROPERTIES = List.of("spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.master", "spring.data.redis.sentinel.nodes",
			"spring.data.redis.cluster.nodes");

	private static final Log logger = LogFactory.getLog(EmbeddedRedisListener.class);

	private @Nullable EmbeddedRedisServer server;

	private boolean stopsWithBeans;

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			environmentPrepared(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && this.server != null) {
			stopAfterBeansAreDestroyed(prepared.getApplicationContext().getBeanFactory());
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
		else if (event instanceof ContextClosedEvent && !this.stopsWithBeans) {
			// Published before the beans are destroyed: only when stopping after them was impossible.
			stop();
		}
	}

	private void environmentPrepared(ConfigurableEnvironment environment) {
		String redisUrl = environment.getProperty("REDIS_URL");
		if (StringUtils.hasText(redisUrl) && !environment.containsProperty("spring.data.redis.url")) {
			environment.getPropertySources()
				.addLast(new MapPropertySource("redisUrlVariable", Map.of("spring.data.redis.url", redisUrl)));
		}
		if (this.server != null) {
			return;
		}
		if (InMemoryStore.isSelected(environment)) {
			logger.info("ratelimit.store=in-memory: the limits are counted in this instance's memory only, not shared"
					+ " with other instances; no Redis is started or used");
			return;
		}
		if (!environment.getProperty("sample.redis.embedded", Boolean.class, true)
				|| REDIS_PROPERTIES.stream().anyMatch(environment::containsProperty)) {
			return;
		}
		this.server = EmbeddedRedisServer.start();
		// The fallback for a JVM that exits without closing the context: Spring Boot runs these handlers at JVM
		// shutdown after closing its contexts, so the server never outlives the JVM nor dies before the context.
		SpringApplication.getShutdownHandlers().add(this::stop);
		environment.getPropertySources()
			.addLast(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", EmbeddedRedisServer.HOST, "spring.data.redis.port",
							this.server.port(), EMBEDDED_PORT_PROPERTY, this.server.port())));
		logger.info("No Redis configured (spring.data.redis.url or REDIS_URL): started an embedded redis-server on "
				+ EmbeddedRedisServer.HOST + ":" + this.server.port());
	}

	/**
	 * Disposable beans are destroyed in reverse order of registration; registered before any bean exists, the server
	 * is stopped last, after the Redis connection factory has closed its connections.
	 */
	private void stopAfterBeansAreDestroyed(ConfigurableListableBeanFactory beanFactory) {
		if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean("embeddedRedisServer", this::stop);
			this.stopsWithBeans = true;
		}
	}

	private void stop() {
		if (this.server != null && this.server.isActive()) {
			this.server.stop();
			logger.info("Stopped the embedded redis-server on " + EmbeddedRedisServer.HOST + ":" + this.server.port());
		}
	}

	/** After the listener that loads application.yml, so that Redis configured there is seen. */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
