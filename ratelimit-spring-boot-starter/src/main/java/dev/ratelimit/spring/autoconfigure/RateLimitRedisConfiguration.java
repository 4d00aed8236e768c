package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import redis.clients.jedis.Jedis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.JedisClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The limiter on Spring Data Redis.
 */
@Configuration(proxyBeanMethods = false)
class RateLimitRedisConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RedisConnectionFactory.class)
	ScriptExecutor rateLimitScriptExecutor(RedisConnectionFactory connectionFactory) {
		GenericObjectPoolConfig<?> pool = (connectionFactory instanceof JedisConnectionFactory jedis)
				? jedis.getPoolConfig() : null;
		int attempts = (pool != null && pool.getMaxTotal() > 0) ? pool.getMaxTotal() + 1 : 2;
		return new SpringDataRedisScriptExecutor(new StringRedisTemplate(connectionFactory), attempts);
	}

	/** Checks {@code ratelimit.defaults} at startup, in every kind of application. */
	@Bean
	@ConditionalOnMissingBean
	LimitFactory rateLimitLimitFactory(RateLimitProperties properties, Environment environment,
			BeanFactory beanFactory) {
		return new LimitFactory(properties.getDefaults(), environment, beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ScriptExecutor.class)
	RateLimiter rateLimiter(ScriptExecutor rateLimitScriptExecutor, RateLimitProperties properties) {
		try {
			return new RedisRateLimiter(rateLimitScriptExecutor, properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.key-prefix", properties.getKeyPrefix(),
					ex.getMessage());
		}
	}

	/**
	 * A short command timeout, so a slow or absent Redis cannot hold request threads for Jedis' default 2 s. Only
	 * where the application set none of its own.
	 */
	@Bean
	@ConditionalOnClass(Jedis.class)
	JedisClientConfigurationBuilderCustomizer rateLimitRedisTimeouts(RateLimitProperties properties,
			Environment environment) {
		return (builder) -> {
			if (!environment.containsProperty("spring.data.redis.timeout")) {
				builder.readTimeout(timeout(properties));
			}
			if (!environment.containsProperty("spring.data.redis.connect-timeout")) {
				builder.connectTimeout(timeout(properties));
			}
		};
	}

	/**
	 * A connection pool sized for the limiter, which calls Redis on every request. Where the application set no
	 * size of its own, the pool holds one connection per request thread ({@code server.tomcat.threads.max}, 200 by
	 * default; Boot's own default is 8), so a burst of requests never queues for a connection: a queue would either
	 * stall request threads or, with a bounded wait, make a healthy Redis look failed and let a fail-open burst
	 * through. The wait for a connection is then bounded by the command timeout, for when Redis itself is slow.
	 */
	@Bean
	@ConditionalOnClass(Jedis.class)
	static BeanPostProcessor rateLimitRedisPool(ObjectProvider<RateLimitProperties> properties,
			Environment environment) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				if (bean instanceof JedisConnectionFactory factory && factory.getPoolConfig() != null) {
					GenericObjectPoolConfig<?> pool = factory.getPoolConfig();
					if (!environment.containsProperty("spring.data.redis.jedis.pool.max-active")) {
						int threads = environment.getProperty("server.tomcat.threads.max", Integer.class, 200);
						pool.setMaxTotal(Math.max(pool.getMaxTotal(), threads));
						if (!environment.containsProperty("spring.data.redis.jedis.pool.max-idle")) {
							pool.setMaxIdle(pool.getMaxTotal());
						}
					}
					if (!environment.containsProperty("spring.data.redis.jedis.pool.max-wait")) {
						pool.setMaxWait(timeout(properties.getObject()));
					}
				}
				return bean;
			}

		};
	}

	/** The same short command timeout for Lettuce, where the application uses it instead of Jedis. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.lettuce.core.RedisClient")
	static class LettuceTimeoutConfiguration {

		@Bean
		LettuceClientConfigurationBuilderCustomizer rateLimitRedisLettuceTimeout(RateLimitProperties properties,
				Environment environment) {
			return (builder) -> {
				if (!environment.containsProperty("spring.data.redis.timeout")) {
					builder.commandTimeout(timeout(properties));
				}
			};
		}

	}

	/**
	 * @throws InvalidConfigurationPropertyValueException unless the timeout is positive (0 would mean "wait forever"
	 * to Jedis)
	 */
	static Duration timeout(RateLimitProperties properties) {
		return RateLimitProperties.requirePositive("ratelimit.redis.timeout", properties.getRedis().getTimeout());
	}

}
