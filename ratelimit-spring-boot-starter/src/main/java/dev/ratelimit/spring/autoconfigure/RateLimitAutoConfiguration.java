package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.core.RateLimiter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of distributed rate limiting with Redis: a {@link RateLimiter} on the application's
 * {@code RedisConnectionFactory} ({@code spring.data.redis.*}), and in a Spring MVC application the
 * {@code @RateLimited} aspect, the filter for {@code ratelimit.filter.rules}, and the 429 responses. Switched off
 * entirely by {@code ratelimit.enabled=false}; every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
@Import({ RateLimitRedisConfiguration.class, RateLimitWebConfiguration.class })
public class RateLimitAutoConfiguration {

}
