package dev.ratelimit.spring.autoconfigure;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.ChannelSubscriber;
import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.core.RedisRateLimiter;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.core.redis.LettuceScriptExecutor;
import dev.ratelimit.core.redis.PooledJedisScriptExecutor;
import dev.ratelimit.spring.enforce.LeaseWaits;
import dev.ratelimit.spring.enforce.RateLimitEventRecorder;
import dev.ratelimit.spring.autoconfigure.RateLimitRedisProperties.ClientType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import dev.ratelimit.spring.redis.RedisConnectionLifecycle;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The limiter's own Redis client, and the {@link RateLimiter} on it ({@code ratelimit.store=redis}, the default).
 *
 * <p>
 * The client is not a bean of a type the application could inject (it lives inside the {@link ScriptExecutor}), and
 * nothing of the application's Redis setup is touched: its connection factory, timeouts and pool stay as they are.
 * It talks to the Redis of the application's connection details ({@code spring.data.redis.*}, or a
 * {@code DataRedisConnectionDetails} bean such as a Testcontainers service connection), or to
 * {@code ratelimit.redis.url}, {@code .sentinel.*} or {@code .cluster.nodes}. It is built with the client library the
 * application has: Lettuce when present (one pipelined, asynchronous connection), else Jedis.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(StoreCondition.OnRedis.class)
@ConditionalOnClass(name = RateLimitRedisConfiguration.CONNECTION_DETAILS)
class RateLimitRedisConfiguration {

	/** Spring Boot's Redis connection details: present with spring-boot-starter-data-redis. */
	public static final String CONNECTION_DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private static final String LETTUCE = "io.lettuce.core.RedisClient";

	private static final String JEDIS = "redis.clients.jedis.UnifiedJedis";

	/** The package of Spring Boot's Redis auto-configuration, and of the connection factories it creates. */
	private static final String BOOT_REDIS_PACKAGE = "org.springframework.boot.data.redis.";

	/**
	 * The scripts every new connection loads, so that the first decisions do not pay for NOSCRIPT: a decision's script
	 * for each algorithm alone (limits of several algorithms on one request pay one NOSCRIPT for their script).
	 */
	private static final List<LuaScript> SCRIPTS = Arrays.stream(Algorithm.values())
		.map((algorithm) -> LuaScript.rateLimit(List.of(algorithm)))
		.toList();

	@Bean(StarterBeans.SCRIPT_EXECUTOR)
	@ConditionalOnMissingBean(value = { ScriptExecutor.class, RateLimiter.class }, name = StarterBeans.SCRIPT_EXECUTOR)
	ScriptExecutor rateLimitScriptExecutor(RateLimitProperties properties, Environment environment,
			ObjectProvider<DataRedisConnectionDetails> connectionDetails, ObjectProvider<SslBundles> sslBundles,
			ConfigurableListableBeanFactory beanFactory) {
		RateLimitRedisProperties redis = properties.getRedis();
		Duration timeout = RateLimitProperties.requirePositive("ratelimit.redis.timeout", redis.getTimeout());
		Duration connectTimeout = RateLimitProperties.requirePositive("ratelimit.redis.connect-timeout", redis.getConnectTimeout());
		RedisTarget target = target(redis, environment, connectionDetails, sslBundles.getIfAvailable(), beanFactory);
		if (client(redis.getClient(), beanFactory.getBeanClassLoader()) == ClientType.LETTUCE) {
			// Not connected yet: rateLimitRedisConnection connects it as the application starts.
			return LettuceClients.create(target, timeout, connectTimeout, SCRIPTS);
		}
		if (redis.getJedisPoolSize() < 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.jedis-pool-size",
					redis.getJedisPoolSize(), "At least one connection is needed.");
		}
		return JedisClients.create(target, timeout, connectTimeout, redis.getJedisPoolSize(), SCRIPTS);
	}

	/**
	 * Connects the limiter's client as the application starts, before the web server, and closes its connection
	 * after graceful shutdown: building the beans needs no Redis. An executor that is not one of the starter's Redis
	 * clients (an application's own) is left alone.
	 */
	@Bean(StarterBeans.REDIS_CONNECTION)
	@ConditionalOnMissingBean(name = StarterBeans.REDIS_CONNECTION)
	RedisConnectionLifecycle rateLimitRedisConnection(ObjectProvider<ScriptExecutor> executor,
			RateLimitProperties properties) {
		RateLimitRedisProperties redis = properties.getRedis();
		return new RedisConnectionLifecycle(executor::getIfUnique, redis.getConnectTimeout(), RedisTarget.source(redis));
	}

	/**
	 * Callers waiting for a lease, woken by the releases that the limiter's scripts publish, heard on a pub/sub
	 * connection of the limiter's own client library (opened at the first wait, closed with the application). A
	 * limiter or script executor of the application's own announces nothing that the starter can hear: its callers
	 * retry after the concurrency hint.
	 */
	@Bean(StarterBeans.LEASE_WAITS)
	@ConditionalOnMissingBean(value = LeaseWaits.class, name = StarterBeans.LEASE_WAITS)
	LeaseWaits rateLimitLeaseWaits(RateLimiter rateLimiter, ObjectProvider<ScriptExecutor> executor,
			RateLimitProperties properties, Environment environment,
			ObjectProvider<DataRedisConnectionDetails> connectionDetails, ObjectProvider<SslBundles> sslBundles,
			ConfigurableListableBeanFactory beanFactory) {
		ScriptExecutor ours = executor.getIfUnique();
		if (!(rateLimiter instanceof RedisRateLimiter redisLimiter)
				|| !(ours instanceof LettuceScriptExecutor || ours instanceof PooledJedisScriptExecutor)) {
			return new LeaseWaits(null);
		}
		RateLimitRedisProperties redis = properties.getRedis();
		RedisTarget target = target(redis, environment, connectionDetails, sslBundles.getIfAvailable(), beanFactory);
		ChannelSubscriber subscriber = (ours instanceof LettuceScriptExecutor)
				? LettuceClients.subscriber(target, redis.getConnectTimeout())
				: JedisClients.subscriber(target, redis.getTimeout(), redis.getConnectTimeout());
		return new LeaseWaits(redisLimiter.releases(subscriber));
	}

	@Bean(StarterBeans.RATE_LIMITER)
	@ConditionalOnMissingBean(value = RateLimiter.class, name = StarterBeans.RATE_LIMITER)
	RateLimiter rateLimitRateLimiter(ScriptExecutor rateLimitScriptExecutor, RateLimitProperties properties,
			@Qualifier(StarterBeans.CLOCK) ObjectProvider<InstantSource> clock, Environment environment,
			ObjectProvider<DataRedisConnectionDetails> connectionDetails, ObjectProvider<SslBundles> sslBundles,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<RateLimitEventRecorder> events) {
		RedisRateLimiter limiter;
		try {
			limiter = new RedisRateLimiter(rateLimitScriptExecutor, properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.key-prefix", properties.getKeyPrefix(),
					ex.getMessage());
		}
		// On a Cluster, usage is kept per hash slot; the topology is known of the starter's own clients only.
		boolean ours = rateLimitScriptExecutor instanceof LettuceScriptExecutor
				|| rateLimitScriptExecutor instanceof PooledJedisScriptExecutor;
		if (ours && target(properties.getRedis(), environment, connectionDetails, sslBundles.getIfAvailable(),
				beanFactory).details().getCluster() != null) {
			limiter = limiter.onCluster();
		}
		// decisions per script call (ratelimit.redis.batch.size), when the meters are on
		RateLimitEventRecorder recorder = events.getIfUnique();
		if (recorder != null) {
			limiter = limiter.withBatchSizes(recorder::decisionsPerCall);
		}
		// the application's clock in place of the server's TIME; keys still expire on the server's clock
		InstantSource limitsClock = clock.getIfAvailable();
		return (limitsClock != null) ? limiter.withClock(limitsClock) : limiter;
	}

	/**
	 * The limiter's own Redis if configured; else the application's. An application that builds its own
	 * {@link RedisConnectionFactory} may point it anywhere, so the limiter cannot take Spring Boot's properties for
	 * its target: it must be told.
	 */
	private static RedisTarget target(RateLimitRedisProperties redis, Environment environment,
			ObjectProvider<DataRedisConnectionDetails> connectionDetails, @Nullable SslBundles sslBundles,
			ConfigurableListableBeanFactory beanFactory) {
		RedisTarget own = RedisTarget.ofOwn(redis, sslBundles);
		if (own != null) {
			return own;
		}
		DataRedisConnectionDetails details = connectionDetails.getIfAvailable();
		if (details == null) {
			throw new IllegalStateException("The rate limiter needs a Redis: set spring.data.redis.* (the "
					+ "application's Redis) or ratelimit.redis.url");
		}
		String ownFactory = applicationDefinedConnectionFactory(beanFactory);
		if (ownFactory != null && isBootProperties(details)) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.url", null,
					"The application defines its own RedisConnectionFactory ('" + ownFactory + "'), so the rate "
							+ "limiter cannot tell which Redis it uses: set ratelimit.redis.url (or "
							+ "ratelimit.redis.sentinel.* or ratelimit.redis.cluster.nodes) to the Redis of the limits.");
		}
		return RedisTarget.ofApplication(details, environment.getProperty("spring.data.redis.url"));
	}

	/**
	 * The name of a RedisConnectionFactory bean that Spring Boot did not create, or {@code null}.
	 *
	 * <p>
	 * The rule: a factory is Boot's when the method that creates it is declared in Boot's Redis auto-configuration
	 * ({@code org.springframework.boot.data.redis.*}: {@code LettuceConnectionConfiguration},
	 * {@code JedisConnectionConfiguration}), which creates one only where the application has none
	 * ({@code @ConditionalOnMissingBean}), from the connection details; anything else (a {@code @Bean} method of the
	 * application, a registered singleton, a definition without a factory method) is the application's own.
	 *
	 * <p>
	 * Why it holds in both modes: it asks for the factory method, which both keep, not for the annotation metadata of
	 * the {@code @Bean} method, which only the JVM mode has. On the JVM the definition is the {@code @Bean} method's,
	 * with its metadata. Processed ahead of time ({@code process-aot}, and every native image), the definition is
	 * generated code, a plain {@code RootBeanDefinition} without metadata whose instance supplier names the factory
	 * method ({@code BeanInstanceSupplier.forFactoryMethod(LettuceConnectionConfiguration.class,
	 * "redisConnectionFactory", ...)}): {@link RootBeanDefinition#getResolvedFactoryMethod()} returns it.
	 */
	private static @Nullable String applicationDefinedConnectionFactory(ConfigurableListableBeanFactory beanFactory) {
		for (String name : beanFactory.getBeanNamesForType(RedisConnectionFactory.class, true, false)) {
			if (!beanFactory.containsBeanDefinition(name)) {
				return name;
			}
			String declaringClass = factoryMethodClass(beanFactory.getMergedBeanDefinition(name));
			if (declaringClass == null || !declaringClass.startsWith(BOOT_REDIS_PACKAGE)) {
				return name;
			}
		}
		return null;
	}

	/** The class that declares the method creating the bean, or {@code null} for a bean no method creates. */
	private static @Nullable String factoryMethodClass(BeanDefinition definition) {
		MethodMetadata metadata = (definition instanceof AnnotatedBeanDefinition annotated)
				? annotated.getFactoryMethodMetadata() : null;
		if (metadata != null) {
			return metadata.getDeclaringClassName();
		}
		Method method = (definition instanceof RootBeanDefinition root) ? root.getResolvedFactoryMethod() : null;
		return (method != null) ? method.getDeclaringClass().getName() : null;
	}

	private static boolean isBootProperties(DataRedisConnectionDetails details) {
		return details.getClass().getName()
			.equals("org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails");
	}

	private static ClientType client(ClientType configured, @Nullable ClassLoader classLoader) {
		boolean lettuce = ClassUtils.isPresent(LETTUCE, classLoader);
		boolean jedis = ClassUtils.isPresent(JEDIS, classLoader);
		ClientType client = (configured != ClientType.AUTO) ? configured
				: lettuce ? ClientType.LETTUCE : jedis ? ClientType.JEDIS : null;
		if (client == null) {
			throw new IllegalStateException("The rate limiter needs a Redis client library: add "
					+ "org.springframework.boot:spring-boot-starter-data-redis (Lettuce) or redis.clients:jedis");
		}
		if ((client == ClientType.LETTUCE && !lettuce) || (client == ClientType.JEDIS && !jedis)) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.client", configured,
					"That client library is not on the class path.");
		}
		return client;
	}

}
