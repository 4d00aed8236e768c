package dev.ratelimit.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;

/**
 * The context runners of the condition tests: the starter's auto-configurations with Spring Data Redis, pointed at a
 * Redis where nothing listens. Building the beans connects nothing (the limiter connects in the application's
 * lifecycle, {@code RedisConnectionLifecycle}); as the context starts, the connection is refused at once, and the
 * limiter logs it and starts, as an application does whose Redis is down at startup. So these tests neither need nor
 * wait for a Redis, and what they assert holds whether or not Redis is up.
 */
final class WithoutRedis {

	/** A Redis URL where nothing listens. */
	static final String URL = "redis://127.0.0.1:1";

	private WithoutRedis() {
	}

	/** A Spring MVC application. */
	static WebApplicationContextRunner servlet() {
		return new WebApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
					JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + URL);
	}

	/** An application without a web server. */
	static ApplicationContextRunner nonWeb() {
		return new ApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all())
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + URL);
	}

}
