package dev.ratelimit.dropin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
 * {@link DropInIT}'s proof for a Spring WebFlux application: adding the starter changes nothing that the host
 * application owns, apart from the limits, on the reactor's Spring Boot (4.0.x) and on Spring Boot 4.1.2.
 *
 * <p>
 * The hosts ({@link Host}) are the modules {@code webflux-host}, {@code webflux-host-with-starter},
 * {@code webflux-host-boot-4.1} and {@code webflux-host-boot-4.1-with-starter}: one application's code
 * ({@code webflux-host-app}: Spring WebFlux on Reactor Netty, reactive Spring Data Redis on Lettuce, a
 * {@code SecurityWebFilterChain}, actuator) with the dependencies an application would name, the starter added in
 * the {@code -with-starter} ones and nothing else. Its endpoint {@code GET /limited} returns a {@code Mono} and has
 * {@code @RateLimited(limit = 2, window = "1m")}; without the starter the annotation's class is absent and the JVM
 * drops the annotation. Each pair runs as separate {@code java -cp} processes against a Redis of its own, three times,
 * as in {@link DropInIT}: <b>without</b> the starter, <b>configured</b> (the starter and {@link DropInIT#RULE}, a
 * filter rule of 2 per hour on {@code /limited}, also given to <b>without</b>), and <b>dropped in</b> (the starter,
 * no {@code ratelimit.*} property).
 *
 * <p>
 * What the starter may add, and nothing else: its own jars ({@link DropInIT#STARTERS_OWN_JARS}); its own beans, none
 * of a type of the application's Redis, client or health ({@link DropInIT#APPLICATIONS_REDIS}); and one change to a
 * bean of the application's, which the README names: the bean with {@code @RateLimited} methods
 * ({@link #LIMITED_BEAN}) becomes a CGLIB proxy of its own class. Every compared field of the reports must be equal,
 * the reactive ones included (reactive Redis templates, the security chain, the web server, a 1 s {@code BLPOP}
 * through the reactive template).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebFluxDropInIT {

	static final String MAIN_CLASS = "dev.ratelimit.dropin.webflux.WebFluxHostApplication";

	/** What Spring Boot runs a reactive web application in, and on. */
	static final String REACTIVE_CONTEXT = "org.springframework.boot.web.server.reactive.context."
			+ "AnnotationConfigReactiveWebServerApplicationContext";

	static final String NETTY_SERVER = "org.springframework.boot.reactor.netty.NettyWebServer";

	/** The application's bean with a {@code @RateLimited} method, and its class. */
	static final String LIMITED_BEAN = "limitedController";

	static final String LIMITED_CLASS = "dev.ratelimit.dropin.webflux.LimitedController";

	/** A CGLIB proxy of {@link #LIMITED_CLASS}, as Spring names it. */
	static final Pattern LIMITED_PROXY = Pattern.compile(Pattern.quote(LIMITED_CLASS) + "\\$\\$SpringCGLIB\\$\\$\\d+");

	/** {@code RateLimit-Policy} items: the annotation's limit (default name {@code Class.method}), and the rule's. */
	static final String ANNOTATION_POLICY = "\"LimitedController.limited\";q=2;w=60";

	static final String RULE_POLICY = "\"/limited\";q=2;w=3600";

	/** The hosts compared: the WebFlux application on a Spring Boot, a module without the starter and one with it. */
	enum Host {

		WEBFLUX(DropInIT.Boot.V4_0), WEBFLUX_BOOT_4_1(DropInIT.Boot.V4_1);

		final DropInIT.Boot boot;

		/** The host module without the starter: {@code webflux-host}, {@code webflux-host-boot-4.1}. */
		final String module;

		Host(DropInIT.Boot boot) {
			this.boot = boot;
			this.module = "webflux-host" + boot.suffix;
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
		// Three start-ups at a time on a 2-core machine, as DropInIT; a started application is idle.
		starting = Executors.newFixedThreadPool(3);
		for (Host host : Host.values()) {
			TestRedis server = TestRedis.start();
			redis.put(host, server);
			List<String> configured = new ArrayList<>(DropInIT.common(server));
			configured.addAll(DropInIT.RULE);
			start(Run.WITHOUT, host, configured);
			start(Run.CONFIGURED, host, configured);
			start(Run.DROPPED_IN, host, DropInIT.common(server));
		}
	}

	private static void start(Run run, Host host, List<String> args) {
		String name = run.name(host);
		reports.put(name, starting.submit(() -> {
			HostProcess process = HostProcess.start(name, HostClassPath.of(run.module(host)).classPath(), MAIN_CLASS,
					args);
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
	void theHostsAreWebFluxApplicationsBuiltSeparatelyWithAndWithoutTheStarterJar(Host host) {
		for (String module : List.of(host.module, host.withStarter())) {
			HostClassPath classPath = HostClassPath.of(module);
			assertThat(classPath.entries()).as("%s: the class path given to java -cp and the artifacts Maven listed",
					module)
				.containsExactlyInAnyOrderElementsOf(classPath.artifactFiles());
			assertThat(classPath.entries()).as("%s: every class path entry exists", module).allMatch(Files::exists);
			assertThat(classPath.artifacts()).as("%s: the host's own code, and host-app's report code", module)
				.containsKeys("dev.ratelimit:ratelimit-drop-in-webflux-host-app",
						"dev.ratelimit:ratelimit-drop-in-host-app");
			assertThat(classPath.artifacts()).as("%s: Spring WebFlux on Reactor Netty, reactive Redis on Lettuce",
					module)
				.containsKeys("org.springframework:spring-webflux", "io.projectreactor.netty:reactor-netty-http",
						"io.lettuce:lettuce-core", "org.springframework.security:spring-security-web");
			assertThat(classPath.artifacts().keySet()).as("%s: no Spring MVC, no servlet container", module)
				.doesNotContain("org.springframework:spring-webmvc", "org.apache.tomcat.embed:tomcat-embed-core",
						"jakarta.servlet:jakarta.servlet-api");
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
			if (!without.artifacts().containsKey(key) && !DropInIT.STARTERS_OWN_JARS.contains(key)) {
				problems.add("added: " + artifact);
			}
		});
		if (!problems.isEmpty()) {
			fail(host.withStarter() + "'s class path is not " + host.module + "'s plus the starter's own jars "
					+ DropInIT.STARTERS_OWN_JARS + ":\n  " + String.join("\n  ", problems));
		}
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(3)
	void theStarterAddsNoRedisClientLibrary(Host host) {
		Set<String> added = new TreeSet<>(HostClassPath.of(host.withStarter()).artifacts().keySet());
		added.removeAll(HostClassPath.of(host.module).artifacts().keySet());
		added.retainAll(DropInIT.FOREIGN_CLIENT_JARS.get(DropInIT.Client.LETTUCE));
		assertThat(added).as("Redis client libraries that the starter adds to the Lettuce application (%s): Jedis"
				+ " brings commons-pool2, with which Boot pools the application's connections", host.withStarter())
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
	void everyRunIsAReactiveApplicationOnLettuceAndBlocksOneSecondOnItsOwnCommands(Host host) {
		List<String> problems = new ArrayList<>();
		for (Run run : Run.values()) {
			HostReport report = report(run.name(host));
			if (!report.get("web.applicationContext").equals(REACTIVE_CONTEXT)
					|| !report.get("web.server").equals(NETTY_SERVER)) {
				problems.add(report.name() + ": not a reactive application on Reactor Netty: "
						+ report.get("web.applicationContext") + ", " + report.get("web.server"));
			}
			if (!report.get("client").equals("lettuce")) {
				problems.add(report.name() + ": Boot chose " + report.get("client"));
			}
			for (String command : List.of("blpop", "reactive.blpop")) {
				String outcome = report.get(command + ".outcome");
				long elapsed = Long.parseLong(report.get(command + ".elapsedMs"));
				if (!outcome.equals("returned null") || elapsed < 900) {
					problems.add(report.name() + ": its own BLPOP of 1 s (" + command + ") " + outcome + " after "
							+ elapsed + " ms");
				}
			}
		}
		if (!problems.isEmpty()) {
			fail("The application's web server and own Redis use (expected: a reactive web server application on"
					+ " Netty, Lettuce, a 1 s BLPOP on an empty list through the StringRedisTemplate and through the"
					+ " ReactiveStringRedisTemplate returning null after at least 900 ms):\n  "
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
	void theStarterAddsOnlyBeansOfItsOwnAndProxiesOnlyTheLimitedController(Host host) {
		Map<String, String> without = report(Run.WITHOUT.name(host)).beans();
		List<String> problems = new ArrayList<>();
		if (!LIMITED_CLASS.equals(without.get(LIMITED_BEAN))) {
			problems.add(Run.WITHOUT.name(host) + ": " + LIMITED_BEAN + " is " + without.get(LIMITED_BEAN)
					+ ", not the application's own " + LIMITED_CLASS);
		}
		for (Run run : List.of(Run.CONFIGURED, Run.DROPPED_IN)) {
			Map<String, String> with = report(run.name(host)).beans();
			String prefix = run.name(host) + ": ";
			without.forEach((name, type) -> {
				String now = with.get(name);
				if (now == null) {
					problems.add(prefix + name + ": gone (was " + type + ")");
				}
				else if (name.equals(LIMITED_BEAN)) {
					if (!LIMITED_PROXY.matcher(now).matches()) {
						problems.add(prefix + name + ": " + type + " became " + now + ", not a CGLIB proxy of "
								+ LIMITED_CLASS + " (the one change the starter makes to a bean with @RateLimited)");
					}
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
				String redisType = DropInIT.APPLICATIONS_REDIS.stream()
					.filter(type::contains)
					.findFirst()
					.orElse(null);
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
					+ "'s plus the starter's own, with " + LIMITED_BEAN + " proxied:\n  "
					+ String.join("\n  ", problems));
		}
	}

	// ---------------------------------------------------------------------------------------------------------
	// The limits apply

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(20)
	void theAnnotationLimitsTheMonoHandlerWithTheStarterDroppedIn(Host host) {
		assertLimited(host, report(Run.DROPPED_IN.name(host)), Set.of(ANNOTATION_POLICY),
				"@RateLimited(limit = 2, window = \"1m\"), no ratelimit.* property");
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(21)
	void theRuleAndTheAnnotationLimitTheMonoHandlerWithTheStarterConfigured(Host host) {
		assertLimited(host, report(Run.CONFIGURED.name(host)), Set.of(RULE_POLICY, ANNOTATION_POLICY),
				"@RateLimited(limit = 2, window = \"1m\") and a rule of 2 per hour");
	}

	/**
	 * {@code GET /limited} three times: 200 with the handler's body, 200, then 429 with {@code Retry-After}; every
	 * response names exactly the {@code policies} that apply ({@code RateLimit-Policy}, one item per limit).
	 *
	 * <p>
	 * The two runs with the starter share the host's Redis (the report compares the Redis target, so it is the same
	 * in all three runs), and the client is 127.0.0.1 in both: the annotation's budget is one for both, as for two
	 * instances of one application. The Redis is emptied first, so that each run starts with the whole budget.
	 */
	private static void assertLimited(Host host, HostReport with, Set<String> policies, String limits) {
		assertThat(redis.get(host).command("FLUSHALL")).as("FLUSHALL before %s's requests", with.name())
			.isEqualTo("+OK");
		List<HttpResponse<String>> responses = threeGets(with);
		assertThat(responses).as("%s: GET /limited three times, with %s", with.name(), limits)
			.extracting(HttpResponse::statusCode)
			.containsExactly(200, 200, 429);
		assertThat(responses.subList(0, 2)).as("%s: the handler's Mono answered", with.name())
			.extracting(HttpResponse::body)
			.containsOnly("limited");
		assertThat(responses.get(2).headers().firstValue("Retry-After")).as("%s: Retry-After of the 429", with.name())
			.hasValueSatisfying((value) -> assertThat(Long.parseLong(value)).isPositive());
		for (int i = 0; i < responses.size(); i++) {
			assertThat(policyItems(responses.get(i))).as("%s: RateLimit-Policy of response %d (%s)", with.name(), i + 1,
					limits)
				.isEqualTo(policies);
		}
	}

	private static Set<String> policyItems(HttpResponse<String> response) {
		return response.headers()
			.allValues("RateLimit-Policy")
			.stream()
			.flatMap((value) -> Arrays.stream(value.split(",")))
			.map(String::trim)
			.filter((item) -> !item.isEmpty())
			.collect(Collectors.toCollection(TreeSet::new));
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(Host.class)
	@Order(22)
	void withoutTheStarterTheSameRequestsAreNotLimited(Host host) {
		HostReport without = report(Run.WITHOUT.name(host));
		List<HttpResponse<String>> responses = threeGets(without);
		assertThat(responses).as("%s: GET /limited three times, the same code and arguments, no starter",
				without.name())
			.extracting(HttpResponse::statusCode)
			.containsExactly(200, 200, 200);
		assertThat(responses).as("%s: the handler's Mono answered", without.name())
			.extracting(HttpResponse::body)
			.containsOnly("limited");
		assertThat(responses).as("%s: no rate-limit fields", without.name())
			.allSatisfy((response) -> assertThat(response.headers().map().keySet())
				.noneMatch((header) -> header.toLowerCase(Locale.ROOT).startsWith("ratelimit")));
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
