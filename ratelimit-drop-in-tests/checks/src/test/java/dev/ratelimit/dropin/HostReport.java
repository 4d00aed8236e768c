package dev.ratelimit.dropin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a host application reported about itself (written by the host's {@code OwnershipReport}), as properties:
 * <ul>
 * <li>{@code client}: the client library Boot chose ({@code lettuce} or {@code jedis}), from the one
 * {@code RedisConnectionFactory} bean;</li>
 * <li>{@code beans.RedisConnectionFactory}, {@code beans.ReactiveRedisConnectionFactory}, {@code beans.RedisTemplate},
 * {@code beans.StringRedisTemplate}: the beans of these types, {@code name:class, ...};</li>
 * <li>{@code lettuce.*}: {@code LettuceConnectionFactory}'s target and flags, its client configuration (command and
 * shutdown timeouts, {@code pooling} and the pool's {@code maxTotal}, {@code maxIdle}, {@code minIdle},
 * {@code maxWait}), its client options (timeout options, socket connect timeout, ...) as configured and as the
 * running native client has them; or {@code jedis.*}: {@code JedisConnectionFactory}'s target, its read and connect
 * timeouts, {@code pooling} and the pool's settings;</li>
 * <li>{@code classpath.<class>}: whether the Lettuce, Jedis and commons-pool2 classes are visible to it;</li>
 * <li>{@code health.contributors}, {@code health.reactiveContributors}: its health contributors, {@code name:class};</li>
 * <li>{@code bean.<name>}: the class of every bean definition (lambdas and anonymous classes with what they
 * implement), compared by {@link DropInIT} with its own rules;</li>
 * <li>{@code blpop.ping}, {@code blpop.outcome}, {@code blpop.elapsedMs}: its own 1 s {@code BLPOP} on an empty list
 * through its {@code StringRedisTemplate}: how it ended ({@code returned null} or {@code threw ...}) and how long it
 * took;</li>
 * <li>{@code boot.version}: the Spring Boot it runs on ({@code SpringBootVersion.getVersion()});</li>
 * <li>{@code local.server.port}.</li>
 * </ul>
 * The WebFlux host ({@code webflux-host-app}'s {@code ReactiveOwnershipReport}) reports these too, and besides:
 * <ul>
 * <li>{@code web.applicationContext}, {@code web.server}: the classes of its application context and its web
 * server;</li>
 * <li>{@code beans.ReactiveRedisTemplate}, {@code beans.ReactiveStringRedisTemplate},
 * {@code beans.SecurityWebFilterChain}: the beans of these types, {@code name:class, ...};</li>
 * <li>{@code reactive.blpop.ping}, {@code reactive.blpop.outcome}, {@code reactive.blpop.elapsedMs}: its own 1 s
 * {@code BLPOP} through its {@code ReactiveStringRedisTemplate}.</li>
 * </ul>
 */
record HostReport(String name, Map<String, String> fields) {

	/**
	 * Fields that differ from run to run by nature, not by the starter: never compared
	 * ({@code reactive.blpop.elapsedMs} is the WebFlux host's only).
	 */
	static final Set<String> PER_RUN = Set.of("local.server.port", "blpop.elapsedMs", "reactive.blpop.elapsedMs");

	/** The prefix of the bean fields, which have a comparison of their own. */
	static final String BEAN = "bean.";

	String get(String key) {
		String value = this.fields.get(key);
		if (value == null) {
			throw new AssertionError(this.name + " reported no '" + key + "': " + this.fields.keySet());
		}
		return value;
	}

	int port() {
		return Integer.parseInt(get("local.server.port"));
	}

	/** {@code bean.<name>} without the prefix, by name. */
	Map<String, String> beans() {
		Map<String, String> beans = new TreeMap<>();
		this.fields.forEach((key, value) -> {
			if (key.startsWith(BEAN)) {
				beans.put(key.substring(BEAN.length()), value);
			}
		});
		return beans;
	}

	/** The fields compared field by field: all but {@link #PER_RUN} and the beans. */
	Map<String, String> compared() {
		Map<String, String> compared = new TreeMap<>(this.fields);
		compared.keySet().removeIf((key) -> PER_RUN.contains(key) || key.startsWith(BEAN));
		return compared;
	}

	/**
	 * The compared fields in which {@code other} differs from this report, one line each:
	 * {@code key: <this name> = value, <other name> = value}.
	 */
	List<String> differencesFrom(HostReport other) {
		Map<String, String> mine = compared();
		Map<String, String> theirs = other.compared();
		Set<String> keys = new TreeSet<>(mine.keySet());
		keys.addAll(theirs.keySet());
		List<String> differences = new ArrayList<>();
		for (String key : keys) {
			String a = mine.get(key);
			String b = theirs.get(key);
			if (a == null || !a.equals(b)) {
				differences.add(key + ": " + this.name + " = " + ((a != null) ? a : "(absent)") + ", " + other.name
						+ " = " + ((b != null) ? b : "(absent)"));
			}
		}
		return differences;
	}

}
