package dev.ratelimit.dropin.host;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;
import org.springframework.util.ClassUtils;

/**
 * With {@code --drop-in.report=<file>}: once the application has started, describes what it owns (its Redis beans,
 * its connection factory's settings, its health contributors, every bean definition) and the Spring Boot version it
 * runs on, runs a 1 s blocking command of its own ({@code BLPOP} on an empty list through its
 * {@code StringRedisTemplate}), and writes all of it to the file as properties, in one atomic move, with
 * {@code local.server.port}. The keys are documented in the checks' {@code HostReport}.
 */
@Component
public class OwnershipReport implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(OwnershipReport.class);

	protected static final Duration BLOCKING_POP = Duration.ofSeconds(1);

	private final ApplicationContext context;

	private final Environment environment;

	private final ObjectProvider<StringRedisTemplate> redis;

	private final ObjectProvider<HealthContributorRegistry> health;

	protected OwnershipReport(ApplicationContext context, Environment environment,
			ObjectProvider<StringRedisTemplate> redis, ObjectProvider<HealthContributorRegistry> health) {
		this.context = context;
		this.environment = environment;
		this.redis = redis;
		this.health = health;
	}

	@Override
	public void run(ApplicationArguments args) {
		String file = this.environment.getProperty("drop-in.report");
		if (file == null) {
			return;
		}
		Map<String, String> report = new TreeMap<>();
		report.put("local.server.port", this.environment.getProperty("local.server.port", "none"));
		// The Spring Boot it runs on (from the spring-boot jar's manifest): the version its host's pom manages.
		report.put("boot.version", String.valueOf(SpringBootVersion.getVersion()));
		for (String library : new String[] { "io.lettuce.core.RedisClient", "redis.clients.jedis.Jedis",
				"org.apache.commons.pool2.impl.GenericObjectPool" }) {
			report.put("classpath." + library, String.valueOf(ClassUtils.isPresent(library, null)));
		}
		beansOfType(report, RedisConnectionFactory.class);
		beansOfType(report, ReactiveRedisConnectionFactory.class);
		beansOfType(report, RedisTemplate.class);
		beansOfType(report, StringRedisTemplate.class);
		Map<String, RedisConnectionFactory> factories = this.context.getBeansOfType(RedisConnectionFactory.class);
		report.put("client", (factories.size() == 1) ? client(factories.values().iterator().next(), report)
				: "not one RedisConnectionFactory but " + factories.size());
		HealthContributorRegistry registry = this.health.getIfAvailable();
		if (registry != null) {
			report.put("health.contributors", registry.stream()
				.map((entry) -> entry.name() + ":" + typeName(entry.contributor().getClass()))
				.sorted()
				.collect(Collectors.joining(", ")));
		}
		if (ClassUtils.isPresent("reactor.core.publisher.Mono", null)) {
			ReactiveHealth.describe(this.context, report);
		}
		for (String name : this.context.getBeanDefinitionNames()) {
			Class<?> type = this.context.getType(name, false);
			report.put("bean." + name, (type != null) ? typeName(type) : "unknown");
		}
		describeMore(report);
		blockingPop(report);
		write(Path.of(file), report);
		logger.info("drop-in report written to " + file);
	}

	/**
	 * What a subclass reports besides (the reactive host's {@code webflux-host-app}); nothing here, so that the
	 * Spring MVC hosts' reports are this class's alone.
	 */
	protected void describeMore(Map<String, String> report) {
	}

	/**
	 * The names and classes of the beans of {@code type}: {@code name:class, ...} in name order, or {@code none}.
	 */
	protected final void beansOfType(Map<String, String> report, Class<?> type) {
		Set<String> names = new LinkedHashSet<>();
		String[] found = this.context.getBeanNamesForType(type);
		Arrays.sort(found);
		for (String name : found) {
			names.add(name + ":" + typeName(this.context.getType(name, false)));
		}
		report.put("beans." + type.getSimpleName(), names.isEmpty() ? "none" : String.join(", ", names));
	}

	/** Which client library Boot chose, and that client's settings under {@code lettuce.*} or {@code jedis.*}. */
	private static String client(RedisConnectionFactory factory, Map<String, String> report) {
		// The client classes are touched only when that library is on the class path.
		if (ClassUtils.isPresent("io.lettuce.core.RedisClient", null) && LettuceSettings.describe(factory, report)) {
			return "lettuce";
		}
		if (ClassUtils.isPresent("redis.clients.jedis.Jedis", null) && JedisSettings.describe(factory, report)) {
			return "jedis";
		}
		return "unknown: " + factory.getClass().getName();
	}

	/**
	 * {@code BLPOP} on a list that does not exist, for {@link #BLOCKING_POP}: the application's own blocking command,
	 * which its own timeouts allow. Reports how it ended and how long it took.
	 */
	private void blockingPop(Map<String, String> report) {
		StringRedisTemplate template = this.redis.getIfAvailable();
		if (template == null) {
			report.put("blpop.outcome", "no StringRedisTemplate");
			return;
		}
		String key = "drop-in:empty-list:" + UUID.randomUUID();
		// Connected first, so that the time measured is the command's.
		try {
			report.put("blpop.ping", String.valueOf(template.execute((RedisConnection connection) -> connection.ping())));
		}
		catch (RuntimeException ex) {
			report.put("blpop.ping", "threw " + causes(ex));
		}
		long start = System.nanoTime();
		String outcome;
		try {
			String popped = template.opsForList().leftPop(key, BLOCKING_POP);
			outcome = "returned " + popped;
		}
		catch (RuntimeException ex) {
			outcome = "threw " + causes(ex);
		}
		report.put("blpop.elapsedMs", String.valueOf(Duration.ofNanos(System.nanoTime() - start).toMillis()));
		report.put("blpop.outcome", outcome);
	}

	protected static String causes(Throwable ex) {
		StringBuilder chain = new StringBuilder();
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			chain.append((chain.length() > 0) ? " <- " : "").append(cause.getClass().getName()).append(": ")
				.append(cause.getMessage());
		}
		return chain.toString().replace('\n', ' ');
	}

	/**
	 * A class name that is the same in every run: lambdas and JDK proxies get generated names, which are cut to
	 * what they are. Lambdas and anonymous classes also name what they implement, which is what they are to the
	 * application ({@code ...$$Lambda implements ...LettuceClientConfigurationBuilderCustomizer}).
	 */
	public static String typeName(@Nullable Class<?> type) {
		if (type == null) {
			return "unknown";
		}
		String name = type.getName();
		if (java.lang.reflect.Proxy.isProxyClass(type)) {
			return "JDK proxy implements " + interfaces(type);
		}
		int lambda = name.indexOf("$$Lambda");
		if (lambda >= 0) {
			return name.substring(0, lambda) + "$$Lambda implements " + interfaces(type);
		}
		if (type.isAnonymousClass()) {
			return name + " extends " + type.getSuperclass().getName()
					+ ((type.getInterfaces().length > 0) ? " implements " + interfaces(type) : "");
		}
		return name;
	}

	private static String interfaces(Class<?> type) {
		return Arrays.stream(type.getInterfaces()).map(Class::getName).sorted().collect(Collectors.joining(" & "));
	}

	private static void write(Path file, Map<String, String> report) {
		Properties properties = new Properties() {

			@Override
			public Set<Map.Entry<Object, Object>> entrySet() {
				// Sorted, so that a person can read the file.
				Map<Object, Object> sorted = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
				for (Map.Entry<Object, Object> entry : super.entrySet()) {
					sorted.put(entry.getKey(), entry.getValue());
				}
				return Collections.unmodifiableMap(sorted).entrySet();
			}

		};
		properties.putAll(report);
		try {
			StringWriter text = new StringWriter();
			properties.store(text, "what the host application owns (drop-in report)");
			Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
			Files.writeString(temporary, text.toString(), StandardCharsets.UTF_8);
			Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the report to " + file, ex);
		}
	}

}
