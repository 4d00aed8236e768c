package dev.ratelimit.dropin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Adding the starter changes nothing that the host application owns (docs/HTTP.md, "What the starter leaves
 * alone"), proved on applications built separately, with and without the starter jar, for a Lettuce application
 * and a Jedis one on the reactor's Spring Boot (4.0.x), and for the Lettuce one on Spring Boot 4.1.2.
 *
 * <p>
 * The hosts ({@link Host}) are the modules {@code lettuce-host}, {@code lettuce-host-with-starter},
 * {@code jedis-host}, {@code jedis-host-with-starter}, {@code lettuce-host-boot-4.1} and
 * {@code lettuce-host-boot-4.1-with-starter}: one application's code ({@code host-app}) with the dependencies an
 * application would name, the starter added in the {@code -with-starter} ones and nothing else; the
 * {@code -boot-4.1} ones have Boot's own parent at 4.1.2 in place of the reactor's, so that Boot 4.1.2 manages every
 * version, the starter's dependencies included. Maven resolved each one's class path in its own build. Each pair of
 * hosts is run here as separate {@code java -cp} processes against a Redis of its own, three times:
 * <ul>
 * <li><b>without</b>: the host without the starter;</li>
 * <li><b>configured</b>: the host with the starter and a filter rule on {@code /limited} (2 per hour), with
 * {@code ratelimit.redis.timeout=5s} (the same arguments are given to <b>without</b>, which ignores them);</li>
 * <li><b>dropped in</b>: the host with the starter and no {@code ratelimit.*} property at all: the starter's
 * defaults, as a team adding the dependency gets them.</li>
 * </ul>
 * Each run writes a report of what it owns ({@link HostReport}); the checks compare them with the run without.
 *
 * <p>
 * What the starter may add, and nothing else: its own jars ({@link #STARTERS_OWN_JARS}); its own beans (named
 * {@code rateLimit...}/{@code ratelimit...} or of its own types, none of a type of the application's Redis, its
 * client or its health, {@link #APPLICATIONS_REDIS}); and, in the report, nothing: every compared field must be
 * equal. No bean of the application changes its class: the starter proxies only beans with {@code @RateLimited}
 * methods, and the host has none.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DropInIT {

	/** The jars the starter may add to an application, {@code groupId:artifactId}: its own two. */
	static final Set<String> STARTERS_OWN_JARS = Set.of("dev.ratelimit:ratelimit-core",
			"dev.ratelimit:ratelimit-spring-boot-starter");

	/** Redis client libraries, {@code groupId:artifactId}: the starter must add none of them. */
	static final Map<Client, Set<String>> FOREIGN_CLIENT_JARS = Map.of(Client.LETTUCE,
			Set.of("redis.clients:jedis", "org.apache.commons:commons-pool2"), Client.JEDIS,
			Set.of("io.lettuce:lettuce-core"));

	/**
	 * Packages of the types a starter's bean must not have: the application's Redis (Spring Data's connection
	 * factories and templates, Boot's Redis auto-configuration and its client customizers), the client libraries,
	 * and health contributors. Such a bean would be injected by the application's own injection points, customize its
	 * connection factory, or join its health check.
	 */
	static final List<String> APPLICATIONS_REDIS = List.of("org.springframework.data.redis.",
			"org.springframework.boot.data.redis.", "io.lettuce.", "redis.clients.", "org.apache.commons.pool2.",
			"org.springframework.boot.health.");

	/** The arguments of every run. */
	static List<String> common(TestRedis redis) {
		return List.of("--server.port=0", "--server.address=127.0.0.1", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port());
	}

	/** A rule on {@code /limited}, for the <b>configured</b> run (and given to <b>without</b> too). */
	static final List<String> RULE = List.of("--ratelimit.filter.rules[0].paths[0]=/limited",
			"--ratelimit.filter.rules[0].limit=2", "--ratelimit.filter.rules[0].window=1h",
			"--ratelimit.redis.timeout=5s");

	enum Client {

		LETTUCE("lettuce-host"), JEDIS("jedis-host");

		/** Its host module on the reactor's Spring Boot. */
		final String host;

		Client(String host) {
			this.host = host;
		}

	}

	/** The Spring Boot a host is built on, which its pom's parent manages. */
	enum Boot {

		/** The reactor's, 4.0.x: the hosts inherit ratelimit-parent. */
		V4_0("4.0.", ""),

		/** 4.1.2: the {@code -boot-4.1} hosts' parent is {@code boot-4.1-parent} (spring-boot-starter-parent 4.1.2). */
		V4_1("4.1.2", "-boot-4.1");

		/** The start of {@code SpringBootVersion.getVersion()} in its runs. */
		final String version;

		/** Appended to the client's host module. */
		final String suffix;

		Boot(String version, String suffix) {
			this.version = version;
			this.suffix = suffix;
		}

	}

	/** The hosts compared: a client on a Spring Boot, a module without the starter and one with it. */
	enum Host {

		LETTUCE(Client.LETTUCE, Boot.V4_0), JEDIS(Client.JEDIS, Boot.V4_0),

		/** Lettuce only: a Jedis pair on 4.1 would add as much time again to the module. */
		LETTUCE_BOOT_4_1(Client.LETTUCE, Boot.V4_1);

		final Client client;

		final Boot boot;

		/** The host module without the starter: {@code lettuce-host}, {@code lettuce-host-boot-4.1}, ... */
		final String module;

		Host(Client client, Boot boot) {
			this.client = client;
			this.boot = boot;
			this.module = client.host + boot.suffix;
		}

		String withStarter() {
			return this.module + "-with-starter";
		}

	}

	enum Run {

		WITHOUT, CONFIGURED, DROPPED_IN;

		String name(Host host) {
			return switch (this) {
				case WITHOUT -> host.module;
				case CONFIGURED -> host.withStarter();
				case DROPPED_IN -> host.withStarter() + "-defaults";
			};
		}

		/** The host module it runs. */
		String module(Host host) {
			return (this == WITHOUT) ? host.module : host.withStarter();
		}

	}

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private static final Map<Host, TestRedis> redis = new EnumMap<>(Host.class);

	private static final Map<String, HostProcess> processes = new LinkedHashMap<>();

	private static final Map<String, Future<HostReport>> reports = new LinkedHashMap<>();

	private static ExecutorService starting;

	@BeforeAll
	static void startTheHosts() {
		// Three start-ups at a time on a 2-core machine; a started application is idle.
		starting = Executors.newFixedThreadPool(3);
		for (Host host : Host.values()) {
			TestRedis server = TestRedis.start();
			redis.put(host, server);
			List<String> configured = new ArrayList<>(common(server));
			configured.addAll(RULE);
			start(Run.WITHOUT, host, configured);
			start(Run.CONFIGURED, host, configured);
			start(Run.DROPPED_IN, host, common(server));
		}
	}

	private static void start(Run run, Host host, List<String> args) {
		String name = run.name(host);
		reports.put(name, starting.submit(() -> {
			HostProcess process = HostProcess.start(name, HostClassPath.of(run.module(host)), args);
			synchronized (processes) {
				processes.put(name, process);
			}
			return process.awaitReport();
		}));
	}

	@AfterAll
	static void stopTheHosts() {
		if (starting != null) {
			starting.shutdownNow();
			try {
				starting.awaitTermination(HostProcess.START_UP.toSeconds(), TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		synchronized (processes) {
			processes.values().forEach(HostProcess::stop);
		}
		redis.values().forEach(TestRedis::close);
	}

	// ---------------------------------------------------------------------------------------------------------
	// The class paths, as Maven resolved them for each host

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(1)
	void theHostsAreBuiltSeparatelyWithAndWithoutTheStarterJar(Host host) {
		for (String module : List.of(host.module, host.withStarter())) {
			HostClassPath classPath = HostClassPath.of(module);
			assertThat(classPath.entries()).as("%s: the class path given to java -cp and the artifacts Maven listed",
					module)
				.containsExactlyInAnyOrderElementsOf(classPath.artifactFiles());
			assertThat(classPath.entries()).as("%s: every class path entry exists", module).allMatch(Files::exists);
			assertThat(classPath.artifacts()).as("%s: the host's own code", module)
				.containsKey("dev.ratelimit:ratelimit-drop-in-host-app");
		}
		assertThat(HostClassPath.of(host.module).artifacts().keySet()).as("%s has nothing of the starter", host.module)
			.noneMatch((key) -> key.startsWith("dev.ratelimit:ratelimit-core")
					|| key.startsWith("dev.ratelimit:ratelimit-spring-boot-starter"));
		assertThat(HostClassPath.of(host.withStarter()).artifacts())
			.as("%s has the starter", host.withStarter())
			.containsKey("dev.ratelimit:ratelimit-spring-boot-starter");
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(2)
	void theStarterAddsOnlyItsOwnJarsAndChangesNoVersion(Host host) {
		HostClassPath without = HostClassPath.of(host.module);
		HostClassPath with = HostClassPath.of(host.withStarter());
		List<String> problems = new ArrayList<>();
		without.artifacts().forEach((key, artifact) -> {
			HostClassPath.Artifact same = with.artifacts().get(key);
			if (same == null) {
				problems.add("removed: " + artifact);
			}
			else if (!same.version().equals(artifact.version())) {
				problems.add("changed: " + artifact + " -> " + same.version());
			}
		});
		with.artifacts().forEach((key, artifact) -> {
			if (!without.artifacts().containsKey(key) && !STARTERS_OWN_JARS.contains(key)) {
				problems.add("added: " + artifact);
			}
		});
		if (!problems.isEmpty()) {
			fail(host.withStarter() + "'s class path is not " + host.module + "'s plus the starter's own jars "
					+ STARTERS_OWN_JARS + ":\n  " + String.join("\n  ", problems));
		}
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(3)
	void theStarterAddsNoRedisClientLibrary(Host host) {
		Set<String> added = new TreeSet<>(HostClassPath.of(host.withStarter()).artifacts().keySet());
		added.removeAll(HostClassPath.of(host.module).artifacts().keySet());
		added.retainAll(FOREIGN_CLIENT_JARS.get(host.client));
		assertThat(added).as("Redis client libraries that the starter adds to the %s application (%s): %s",
				host.client, host.withStarter(), (host.client == Client.LETTUCE)
						? "Jedis brings commons-pool2, with which Boot pools the Lettuce application's connections"
						: "Lettuce becomes Boot's client in place of Jedis")
			.isEmpty();
	}

	// ---------------------------------------------------------------------------------------------------------
	// What the running applications own

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(10)
	void everyRunIsOnTheSpringBootItsPomManages(Host host) {
		List<String> problems = new ArrayList<>();
		for (Run run : Run.values()) {
			HostReport report = report(run.name(host));
			String running = report.get("boot.version");
			String resolved = HostClassPath.of(run.module(host))
				.artifacts()
				.get("org.springframework.boot:spring-boot")
				.version();
			if (!running.startsWith(host.boot.version) || !running.equals(resolved)) {
				problems.add(report.name() + ": runs on Spring Boot " + running + ", its class path has spring-boot "
						+ resolved);
			}
		}
		if (!problems.isEmpty()) {
			fail("The Spring Boot of the runs (expected: " + host.boot.version
					+ "..., the spring-boot jar Maven resolved for the host):\n  " + String.join("\n  ", problems));
		}
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(11)
	void everyRunChoosesTheClientOfTheApplicationAndBlocksOneSecondOnItsOwnCommand(Host host) {
		List<String> problems = new ArrayList<>();
		for (Run run : Run.values()) {
			HostReport report = report(run.name(host));
			if (!report.get("client").equals(host.client.name().toLowerCase(java.util.Locale.ROOT))) {
				problems.add(report.name() + ": Boot chose " + report.get("client"));
			}
			String outcome = report.get("blpop.outcome");
			long elapsed = Long.parseLong(report.get("blpop.elapsedMs"));
			if (!outcome.equals("returned null") || elapsed < 900) {
				problems.add(report.name() + ": its own BLPOP of 1 s " + outcome + " after " + elapsed + " ms");
			}
		}
		if (!problems.isEmpty()) {
			fail("The application's own Redis use (expected: " + host.client
					+ ", a 1 s BLPOP on an empty list returns null after at least 900 ms):\n  "
					+ String.join("\n  ", problems));
		}
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(12)
	void withTheStarterConfiguredTheApplicationOwnsTheSameRedis(Host host) {
		assertSameReport(host, Run.CONFIGURED);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(13)
	void withTheStarterDroppedInTheApplicationOwnsTheSameRedis(Host host) {
		assertSameReport(host, Run.DROPPED_IN);
	}

	private static void assertSameReport(Host host, Run run) {
		HostReport without = report(Run.WITHOUT.name(host));
		HostReport with = report(run.name(host));
		List<String> differences = without.differencesFrom(with);
		if (!differences.isEmpty()) {
			fail(with.name() + " reports " + differences.size() + " of " + without.compared().size()
					+ " fields unlike " + without.name() + " (the starter changed what the application owns):\n  "
					+ String.join("\n  ", differences));
		}
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(14)
	void theStarterAddsOnlyBeansOfItsOwnAndChangesNoneOfTheApplications(Host host) {
		Map<String, String> without = report(Run.WITHOUT.name(host)).beans();
		List<String> problems = new ArrayList<>();
		for (Run run : List.of(Run.CONFIGURED, Run.DROPPED_IN)) {
			Map<String, String> with = report(run.name(host)).beans();
			String prefix = run.name(host) + ": ";
			without.forEach((name, type) -> {
				String now = with.get(name);
				if (now == null) {
					problems.add(prefix + name + ": gone (was " + type + ")");
				}
				else if (!now.equals(type)) {
					problems.add(prefix + name + ": " + type + " became " + now);
				}
			});
			with.forEach((name, type) -> {
				if (without.containsKey(name)) {
					return;
				}
				boolean startersOwn = name.startsWith("rateLimit") || name.startsWith("ratelimit")
						|| name.startsWith("dev.ratelimit.") || type.startsWith("dev.ratelimit.");
				String redisType = APPLICATIONS_REDIS.stream().filter(type::contains).findFirst().orElse(null);
				if (!startersOwn) {
					problems.add(prefix + name + ": added (" + type + "), not a bean of the starter's own");
				}
				else if (redisType != null) {
					problems.add(prefix + name + ": added by the starter, of a type of the application's Redis, client"
							+ " or health (" + type + ")");
				}
			});
		}
		if (!problems.isEmpty()) {
			fail("The beans with the starter are not " + Run.WITHOUT.name(host)
					+ "'s plus the starter's own:\n  " + String.join("\n  ", problems));
		}
	}

	// ---------------------------------------------------------------------------------------------------------
	// The limits apply

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(20)
	void theRuleLimitsTheApplicationWithTheStarter(Host host) {
		HostReport with = report(Run.CONFIGURED.name(host));
		List<HttpResponse<String>> responses = threeGets(with);
		assertThat(responses).as("%s: GET /limited three times, with a rule of 2 per hour", with.name())
			.extracting(HttpResponse::statusCode)
			.containsExactly(200, 200, 429);
		assertThat(responses.get(2).headers().firstValue("Retry-After")).as("%s: Retry-After of the 429", with.name())
			.hasValueSatisfying((value) -> assertThat(Long.parseLong(value)).isPositive());
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(21)
	void withoutTheStarterTheSameRequestsAreNotLimited(Host host) {
		HostReport without = report(Run.WITHOUT.name(host));
		List<HttpResponse<String>> responses = threeGets(without);
		assertThat(responses).as("%s: GET /limited three times, the same arguments, no starter", without.name())
			.extracting(HttpResponse::statusCode)
			.containsExactly(200, 200, 200);
		assertThat(responses).as("%s: no rate-limit fields", without.name())
			.allSatisfy((response) -> assertThat(response.headers().map().keySet())
				.noneMatch((header) -> header.toLowerCase(java.util.Locale.ROOT).startsWith("ratelimit")));
	}

	// ---------------------------------------------------------------------------------------------------------
	// And they stop

	@Test
	@Order(100)
	void everyApplicationStopsByItselfWhenAsked() {
		List<String> problems = new ArrayList<>();
		for (String name : reports.keySet()) {
			try {
				report(name);
			}
			catch (AssertionError ex) {
				problems.add(ex.getMessage());
				continue;
			}
			HostProcess process;
			synchronized (processes) {
				process = processes.get(name);
			}
			Integer exitCode = process.stop();
			if (exitCode == null || exitCode != 0) {
				problems.add(name + ((exitCode == null) ? ": did not stop within " + HostProcess.STOP + ", destroyed"
						: ": exited with " + exitCode) + "\n" + process.output());
			}
		}
		if (!problems.isEmpty()) {
			fail("Closing their standard input should stop them with exit code 0:\n" + String.join("\n", problems));
		}
	}

	// ---------------------------------------------------------------------------------------------------------

	/** The report of the run {@code name}, once written; a failure with the application's output otherwise. */
	private static HostReport report(String name) {
		Future<HostReport> report = reports.get(name);
		try {
			return report.get(HostProcess.START_UP.toSeconds() * 2, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw new AssertionError("The run " + name + " failed: " + ex.getCause().getMessage(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new AssertionError("The run " + name + " wrote no report in time", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	private static List<HttpResponse<String>> threeGets(HostReport run) {
		List<HttpResponse<String>> responses = new ArrayList<>();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + run.port() + "/limited"))
			.timeout(Duration.ofSeconds(30))
			.build();
		for (int i = 0; i < 3; i++) {
			try {
				responses.add(HTTP.send(request, HttpResponse.BodyHandlers.ofString()));
			}
			catch (IOException ex) {
				throw new AssertionError(run.name() + ": GET /limited failed: " + ex, ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
		return responses;
	}

}
