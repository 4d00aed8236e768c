package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.enforce.BackgroundCall;
import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.redis.RedisOverrideStore;
import dev.ratelimit.spring.test.ClientTags;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;
import org.springframework.http.server.PathContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Limits changed while the application runs: through the overrides that every instance reads from Redis (set here
 * as the endpoint sets them, {@link OverridesSync#override}), and through Spring Cloud's
 * {@link EnvironmentChangeEvent}. Applications without a web server: the limits are an annotated service's, called
 * outside requests, denied at once ({@code max-wait} 0).
 */
class RuntimeChangesIntegrationTests {

	@Test
	void anOverrideSetOnOneInstanceIsInForceOnTheOtherAndOnAnInstanceStartedAfter() {
		String prefix = "runtime-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(prefix); ConfigurableApplicationContext second = start(prefix)) {
			assertThat(exportLimit(second)).isEqualTo(10);
			first.getBean(OverridesSync.class).override(null, "exports", LimitOverride.of(null, 2L, null, null, null, null));
			// in force on the instance that set it on return
			assertThat(exportLimit(first)).isEqualTo(2);
			awaitExportLimit(second, 2);
			assertAdmitsExactly(second, "c1", 2);
			assertThat(first.getBean(MeterRegistry.class)
				.get("ratelimit.configuration.changes")
				.tags("source", "endpoint", "outcome", "applied")
				.counter()
				.count()).isEqualTo(1);
			assertThat(second.getBean(MeterRegistry.class)
				.get("ratelimit.configuration.changes")
				.tags("source", "store", "outcome", "applied")
				.counter()
				.count()).isEqualTo(1);

			// the hash evicted (allkeys-lru), deleted, or Redis restarted empty: back to the configuration's
			TestRedis.shared().command("DEL", prefix + "{overrides}");
			awaitExportLimit(first, 10);
			awaitExportLimit(second, 10);
			first.getBean(OverridesSync.class).override(null, "exports", LimitOverride.of(null, 2L, null, null, null, null));
			awaitExportLimit(second, 2);

			try (ConfigurableApplicationContext third = start(prefix)) {
				// read on startup, before it takes any call
				assertThat(exportLimit(third)).isEqualTo(2);
				third.getBean(OverridesSync.class).override(null, "exports", null);
				assertThat(exportLimit(third)).isEqualTo(10);
				awaitExportLimit(first, 10);
				awaitExportLimit(second, 10);
			}
		}
	}

	@Test
	void aClientsOverrideSetOnOneInstanceIsInForceOnTheOtherAndOutlivesEveryInstance() {
		String prefix = "runtime-client-" + UUID.randomUUID() + ":";
		OverrideTarget tenant = OverrideTarget.client("key:tenant-a", "exports");
		try (ConfigurableApplicationContext first = start(prefix, PLANS);
				ConfigurableApplicationContext second = start(prefix, PLANS)) {
			// a window of its own: a state of its own, apart from the plan's
			first.getBean(OverridesSync.class).override(tenant, LimitOverride.of(null, 3L, "2h", null, null, null));
			// in force on the instance that set it on return, on the other within its poll (100 ms here)
			assertAdmitsExactly(first, "tenant-a", 3);
			awaitInForce(second, tenant);
			// the 3 spent through the first are all of the tenant's; the others keep their plan's 6
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> second.getBean(ExportService.class).export("tenant-a"));
			assertAdmitsExactly(second, "tenant-z", 6);
			assertThat(second.getBean(OverridesSync.class).stored().targets()).containsOnlyKeys(tenant);
		}
		// kept in Redis: an instance started after every other has stopped reads it before its first call
		try (ConfigurableApplicationContext third = start(prefix, PLANS)) {
			assertThat(third.getBean(LimitConfigurations.class).current().overrides().get(tenant)).isNotNull();
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> third.getBean(ExportService.class).export("tenant-a"));
			// undone: the plan's shape again, and its state, untouched
			third.getBean(OverridesSync.class).override(tenant, null);
			assertAdmitsExactly(third, "tenant-a", 6);
			assertThat(third.getBean(OverridesSync.class).stored().isEmpty()).isTrue();
		}
	}

	@Test
	void aClientsOverrideInItsPlanComesBeforeItsOwnWhichComesBeforeThePlansAndTheConfiguration() {
		try (ConfigurableApplicationContext context = start("runtime-precedence-" + UUID.randomUUID() + ":", PLANS)) {
			// every call has the default plan, free: 6 of its own, 10 configured on the annotation
			OverridesSync sync = context.getBean(OverridesSync.class);
			sync.override(OverrideTarget.inPlan("free", "exports"), LimitOverride.of(null, 5L, null, null, null, null));
			sync.override(OverrideTarget.client("key:own", "exports"), LimitOverride.of(null, 3L, null, null, null, null));
			sync.override(OverrideTarget.client("key:in-plan", "exports"),
					LimitOverride.of(null, 3L, null, null, null, null));
			sync.override(OverrideTarget.client("key:in-plan", "exports").inPlan("free"),
					LimitOverride.of(null, 2L, null, null, null, null));
			sync.override(OverrideTarget.client("key:other-plan", "exports").inPlan("pro"),
					LimitOverride.of(null, 1L, null, null, null, null));
			assertAdmitsExactly(context, "anyone", 5);
			assertAdmitsExactly(context, "own", 3);
			assertAdmitsExactly(context, "in-plan", 2);
			assertAdmitsExactly(context, "other-plan", 5);

			// a client's shape is what its override sets over the shape below it: a calendar day in Berlin
			sync.override(OverrideTarget.client("key:daily", "exports"),
					LimitOverride.of(null, 4L, null, null, null, null).withCalendar("day", "Europe/Berlin", null));
			assertAdmitsExactly(context, "daily", 4);
			RateLimitExceededException denied = org.junit.jupiter.api.Assertions
				.assertThrows(RateLimitExceededException.class, () -> context.getBean(ExportService.class).export("daily"));
			java.time.ZonedDateTime now = java.time.ZonedDateTime.now(java.time.ZoneId.of("Europe/Berlin"));
			long untilMidnight = Duration.between(now, now.toLocalDate().plusDays(1).atStartOfDay(now.getZone()))
				.toMillis();
			assertThat(denied.getRetryAfterMs()).isBetween(untilMidnight - 5_000, untilMidnight + 5_000);

			// undone one by one: the plan's override, then the configuration's plan shape
			sync.override(OverrideTarget.client("key:in-plan", "exports").inPlan("free"), null);
			assertThat(sync.stored().get(OverrideTarget.client("key:in-plan", "exports"))).isNotNull();
			sync.override(OverrideTarget.inPlan("free", "exports"), null);
			assertAdmitsExactly(context, "anyone-else", 6);
		}
	}

	@Test
	void aClientsOverrideThatMakesTheLimitInvalidIsRefusedNamingTheClientsTag() {
		try (ConfigurableApplicationContext context = start("runtime-client-invalid-" + UUID.randomUUID() + ":", PLANS)) {
			OverridesSync sync = context.getBean(OverridesSync.class);
			assertThatExceptionOfType(OverridesSync.InvalidOverrideException.class)
				.isThrownBy(() -> sync.override(OverrideTarget.client("key:tenant-x", "exports"),
						LimitOverride.of("fixed-window", null, null, 50L, null, null)))
				.withMessageContaining("for client " + ClientTags.of("key:tenant-x"))
				.withMessageContaining("(capacity)")
				.withMessageNotContaining("tenant-x");
			assertThat(sync.stored().isEmpty()).isTrue();
			assertAdmitsExactly(context, "tenant-x", 6);
		}
	}

	/** The limit {@code exports} in two plans; every call has the default, free. */
	private static final String[] PLANS = { "--ratelimit.plans.free.exports.limit=6",
			"--ratelimit.plans.pro.exports.limit=20", "--ratelimit.plan.default-plan=free" };

	private static void awaitInForce(ConfigurableApplicationContext context, OverrideTarget target) {
		await(() -> context.getBean(LimitConfigurations.class).current().overrides().get(target) != null);
		assertThat(context.getBean(LimitConfigurations.class).current().overrides().get(target)).isNotNull();
	}

	@Test
	void anInvalidOverrideIsRefusedBeforeItIsStoredAndOneInTheStoreIsLeftAside() {
		String prefix = "runtime-invalid-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(prefix); ConfigurableApplicationContext second = start(prefix)) {
			OverridesSync sync = first.getBean(OverridesSync.class);
			// checked before anything is stored
			assertThatExceptionOfType(RuntimeException.class)
				.isThrownBy(() -> sync.override(null, "exports", LimitOverride.of(null, 0L, null, null, null, null)))
				.withMessageContaining("ExportService.export");
			RedisOverrideStore store = new RedisOverrideStore(first.getBean(ScriptExecutor.class), prefix,
					Duration.ofSeconds(5));
			write(store, null, "exports", LimitOverride.of("fixed-window", 3L, null, null, null, null));
			awaitExportLimit(second, 3);
			// what the endpoint refuses, but another version of the application might store, beside a valid one
			write(store, null, "reports", LimitOverride.of(null, 7L, null, null, null, null));
			write(store, null, "exports", LimitOverride.of(null, 0L, null, null, null, null));
			assertThat(second.getBean(OverridesSync.class).sync()).isTrue();
			// the invalid one is left aside (the configured 10), the valid one is in force
			assertThat(exportLimit(second)).isEqualTo(10);
			assertThat(reportLimit(second)).isEqualTo(7);
			assertAdmitsExactly(() -> second.getBean(ExportService.class).report("c2"), 7);
			// listed as stored, and whether in force here
			assertThat(second.getBean(OverridesSync.class).stored().get(null, "exports")).isNotNull();
			assertThat(second.getBean(LimitConfigurations.class).current().overrides().get(null, "exports")).isNull();
		}
	}

	@Test
	void aChangeOfTheEnvironmentRebuildsTheLimitsAndAnInvalidOneChangesNothing() {
		try (ConfigurableApplicationContext context = start("runtime-env-" + UUID.randomUUID() + ":")) {
			MapPropertySource changes = new MapPropertySource("changes", new java.util.HashMap<>());
			context.getEnvironment().getPropertySources().addFirst(changes);
			LimitConfiguration before = context.getBean(LimitConfigurations.class).current();
			LimitedRequest inFlight = new BackgroundCall();
			assertThat(RequestConfiguration.of(inFlight, context.getBean(LimitConfigurations.class))).isSameAs(before);

			change(context, changes, Map.of("ratelimit.defaults.limit", "4", "ratelimit.defaults.window", "1h"));
			assertThat(reportLimit(context)).isEqualTo(4);
			assertAdmitsExactly(() -> context.getBean(ExportService.class).report("r1"), 4);
			// a request that started before the change finishes under the configuration it started with
			assertThat(RequestConfiguration.of(inFlight, context.getBean(LimitConfigurations.class))).isSameAs(before);

			// invalid: refused whole, as startup would refuse it; the limits stay as they were
			LimitConfiguration valid = context.getBean(LimitConfigurations.class).current();
			change(context, changes, Map.of("ratelimit.defaults.limit", "0"));
			assertThat(context.getBean(LimitConfigurations.class).current()).isSameAs(valid);
			assertThat(context.getBean(MeterRegistry.class)
				.get("ratelimit.configuration.changes")
				.tags("source", "environment", "outcome", "refused")
				.counter()
				.count()).isEqualTo(1);
			assertThat(reportLimit(context)).isEqualTo(4);

			// rules added and removed: they come from the configuration sources, keys included
			change(context, changes, Map.of("ratelimit.filter.rules[0].name", "new-rule",
					"ratelimit.filter.rules[0].paths", "/new/**", "ratelimit.filter.rules[0].key",
					"#request.getHeader('X-Api-Key')"));
			assertThat(context.getBean(LimitConfigurations.class)
				.current()
				.rules()
				.matching("GET", PathContainer.parsePath("/new/x"))).extracting(ConfiguredLimit::name)
				.containsExactly("new-rule");
			change(context, changes, Map.of("ratelimit.defaults.limit", "4"));
			assertThat(context.getBean(LimitConfigurations.class).current().rules().isEmpty()).isTrue();

			// checked as startup would check it: without the overrides, which an undo may remove at any time
			context.getBean(OverridesSync.class)
				.override(null, "reports", LimitOverride.of(null, 5L, null, null, null, null));
			LimitConfiguration overridden = context.getBean(LimitConfigurations.class).current();
			change(context, changes, Map.of("ratelimit.defaults.limit", "0"));
			assertThat(context.getBean(LimitConfigurations.class).current()).isSameAs(overridden);
			assertThat(context.getBean(MeterRegistry.class)
				.get("ratelimit.configuration.changes")
				.tags("source", "environment", "outcome", "refused")
				.counter()
				.count()).isEqualTo(2);
		}
	}

	@Test
	void anInstanceStartedWithoutRedisHasItsConfiguredLimitsUntilRedisAnswers() {
		try (TestRedis redis = TestRedis.start()) {
			redis.stop();
			String prefix = "runtime-down-" + UUID.randomUUID() + ":";
			try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ChangesApplication.class).run(
					"--spring.main.web-application-type=none", "--spring.data.redis.url=" + redis.url(),
					"--ratelimit.key-prefix=" + prefix, "--ratelimit.redis.timeout=500ms",
					"--ratelimit.overrides.poll-interval=100ms")) {
				assertThat(exportLimit(context)).isEqualTo(10);
				redis.restart();
				// set by another instance once Redis is back
				awaitWritten(new RedisOverrideStore(context.getBean(ScriptExecutor.class), prefix, Duration.ofSeconds(5)));
				awaitExportLimit(context, 2);
			}
		}
	}

	/** Writes the override as soon as the limiter's client has reconnected (at most 30 s). */
	private static void awaitWritten(RedisOverrideStore store) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (true) {
			try {
				write(store, null, "exports", LimitOverride.of(null, 2L, null, null, null, null));
				return;
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
			}
		}
	}

	@Test
	void twoChangesMadeAtOnceOnTwoInstancesAreCheckedTogether() {
		String prefix = "runtime-race-" + UUID.randomUUID() + ":";
		String[] plans = { "--ratelimit.plans.free.exports.limit=10", "--ratelimit.plans.pro.exports.limit=20" };
		try (ConfigurableApplicationContext first = start(prefix, plans);
				ConfigurableApplicationContext second = start(prefix, plans)) {
			// the second has not read the first's change when it makes its own
			second.getBean(OverridesSync.class).stop();
			first.getBean(OverridesSync.class)
				.override(null, "exports", LimitOverride.of(null, null, null, null, "shadow", null));
			second.getBean(OverridesSync.class)
				.override("pro", "exports", LimitOverride.of(null, 30L, null, null, null, null));
			// written after reading the first's, so both are stored and in force
			LimitOverrides both = second.getBean(LimitConfigurations.class).current().overrides();
			assertThat(both.get(null, "exports")).isNotNull();
			assertThat(both.get("pro", "exports")).isNotNull();
			awaitInForce(first, "pro", "exports");

			// two changes that are valid alone and invalid together: the later one is refused, nothing stored
			first.getBean(OverridesSync.class)
				.override(null, "exports", LimitOverride.of("fixed-window", null, null, null, null, null));
			assertThatExceptionOfType(OverridesSync.InvalidOverrideException.class)
				.isThrownBy(() -> second.getBean(OverridesSync.class)
					.override("free", "exports", LimitOverride.of(null, null, null, 50L, null, null)))
				.withMessageContaining("ratelimit.plans.free.exports")
				.withMessageContaining("capacity=50");
			assertThat(second.getBean(OverridesSync.class).stored().get("free", "exports")).isNull();
		}
	}

	/** Writes to the store as an instance would, on the version it holds. */
	private static void write(RedisOverrideStore store, String plan, String name, LimitOverride override) {
		OverrideStore.Stored stored = store.read(-1);
		assertThat(stored).isNotNull();
		assertThat(store.write(plan, name, override, stored.version())).isNotNull();
		// a write on a version that is no longer the store's writes nothing
		assertThat(store.write(plan, name, LimitOverride.of(null, 99L, null, null, null, null), stored.version()))
			.isNull();
	}

	private static void awaitInForce(ConfigurableApplicationContext context, String plan, String name) {
		await(() -> context.getBean(LimitConfigurations.class).current().overrides().get(plan, name) != null);
		assertThat(context.getBean(LimitConfigurations.class).current().overrides().get(plan, name)).isNotNull();
	}

	private static void change(ConfigurableApplicationContext context, MapPropertySource changes,
			Map<String, String> values) {
		@SuppressWarnings("unchecked")
		Map<String, Object> source = (Map<String, Object>) changes.getSource();
		source.clear();
		source.putAll(values);
		context.publishEvent(new EnvironmentChangeEvent(context, Set.copyOf(values.keySet())));
	}

	private static ConfigurableApplicationContext start(String prefix, String... more) {
		List<String> arguments = new java.util.ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				"--ratelimit.redis.timeout=30s", "--ratelimit.defaults.max-wait=0",
				"--ratelimit.overrides.poll-interval=100ms"));
		arguments.addAll(List.of(more));
		return new SpringApplicationBuilder(ChangesApplication.class).run(arguments.toArray(String[]::new));
	}

	private static long exportLimit(ConfigurableApplicationContext context) {
		return limitOf(context, "exports");
	}

	private static long reportLimit(ConfigurableApplicationContext context) {
		return limitOf(context, "reports");
	}

	private static long limitOf(ConfigurableApplicationContext context, String name) {
		List<ConfiguredLimit> limits = context.getBean(LimitConfigurations.class)
			.current()
			.names()
			.all()
			.stream()
			.filter((limit) -> limit.name().equals(name))
			.toList();
		assertThat(limits).hasSize(1);
		LimitDefinition definition = limits.get(0).request().definition();
		return definition.limit();
	}

	/** Waits for the instance's own poll (every 100 ms) to read the overrides that another set. */
	private static void awaitExportLimit(ConfigurableApplicationContext context, long limit) {
		await(() -> exportLimit(context) == limit);
		assertThat(exportLimit(context)).isEqualTo(limit);
	}

	/**
	 * Waits until {@code condition} holds: at most 30 s, a margin for a loaded machine; the caller asserts it after.
	 */
	private static void await(java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
	}

	private static void assertAdmitsExactly(ConfigurableApplicationContext context, String client, int limit) {
		assertAdmitsExactly(() -> context.getBean(ExportService.class).export(client), limit);
	}

	private static void assertAdmitsExactly(Supplier<String> call, int limit) {
		for (int i = 0; i < limit; i++) {
			assertThatNoException().as("call %d", i + 1).isThrownBy(call::get);
		}
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(call::get);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ChangesApplication {

		@Bean
		ExportService exportService() {
			return new ExportService();
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	static class ExportService {

		@RateLimited(name = "exports", limit = 10, window = "1h", key = "#client")
		public String export(String client) {
			return client;
		}

		@RateLimited(name = "reports", key = "#client")
		public String report(String client) {
			return client;
		}

	}

}
