package dev.ratelimit.benchmark;

import java.lang.management.ManagementFactory;
import java.util.List;

import redis.clients.jedis.JedisPooled;

/**
 * The counters the tables' costs come from, read before and after a scenario: the Redis server's own ({@code INFO cpu},
 * {@code INFO commandstats}), so that what a decision costs Redis does not depend on the operations per second a
 * loaded machine let through, and this JVM's CPU time, so that a row whose Redis was idle because the benchmark's own
 * client was the bottleneck shows it.
 */
public final class RedisCounters {

	/** The script calls: what one decision makes alone, and what decisions that share a call make fewer of. */
	private static final List<String> SCRIPT_CALLS = List.of("evalsha", "eval");

	/** The calls a client makes to Redis: scripts and {@code PING}, not the commands a script runs inside. */
	private static final List<String> CLIENT_CALLS = List.of("evalsha", "eval", "ping");

	/** This JVM: its CPU time is that of the benchmark's callers, its Redis clients and the applications it runs. */
	private static final com.sun.management.OperatingSystemMXBean PROCESS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private RedisCounters() {
	}

	/** The Redis server's CPU time so far ({@code INFO cpu}: used_cpu_user + used_cpu_sys), in s. */
	public static double redisCpuSeconds(JedisPooled jedis) {
		double seconds = 0;
		for (String line : jedis.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return seconds;
	}

	/**
	 * The script calls Redis has run so far ({@code INFO commandstats}: the calls of {@code cmdstat_evalsha} and
	 * {@code cmdstat_eval}); an {@code EVALSHA} answered {@code NOSCRIPT} counts as one, as does the {@code EVAL}
	 * that follows it (once per script and connection, when the script was not loaded).
	 */
	public static long scriptCalls(JedisPooled jedis) {
		return calls(jedis, SCRIPT_CALLS);
	}

	/** The script calls and {@code PING}s Redis has answered so far ({@code INFO commandstats}), not {@code INFO}. */
	public static long clientCalls(JedisPooled jedis) {
		return calls(jedis, CLIENT_CALLS);
	}

	/** This JVM's CPU time so far (all its threads, user and system), in ns. */
	public static long jvmCpuNanos() {
		return PROCESS.getProcessCpuTime();
	}

	private static long calls(JedisPooled jedis, List<String> commands) {
		long calls = 0;
		for (String line : jedis.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && line.indexOf(':') > 0
					&& commands.contains(line.substring(8, line.indexOf(':')))) {
				String value = line.substring(line.indexOf("calls=") + 6);
				calls += Long.parseLong(value.substring(0, value.indexOf(',')));
			}
		}
		return calls;
	}

}
