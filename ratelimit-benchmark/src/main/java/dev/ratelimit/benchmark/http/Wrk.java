package dev.ratelimit.benchmark.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.benchmark.RedisCounters;
import redis.clients.jedis.JedisPooled;

/** One {@code wrk} run of {@link HttpBenchmark}, and what it cost. */
final class Wrk {

	private static final Pattern REQUESTS_PER_SECOND = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

	private static final Pattern REQUESTS = Pattern.compile("([0-9]+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+([0-9]+)");

	private static final Pattern PERCENTILE = Pattern.compile("^\\s+(50|99)%\\s+([0-9.]+)(us|ms|s)\\s*$",
			Pattern.MULTILINE);

	private Wrk() {
	}

	/**
	 * {@code wrk} with {@code threads} and {@code connections} on {@code url} for {@code seconds}, every request
	 * carrying the API key the typical instance and the gateway are keyed by; the costs from the counters of Redis and
	 * of this JVM, read before and after ({@link RedisCounters}).
	 */
	static HttpBenchmark.Measurement run(String url, int threads, int connections, int seconds, JedisPooled jedis)
			throws IOException, InterruptedException {
		long callsBefore = RedisCounters.clientCalls(jedis);
		long scriptCallsBefore = RedisCounters.scriptCalls(jedis);
		double redisCpuBefore = RedisCounters.redisCpuSeconds(jedis);
		long appCpuBefore = RedisCounters.jvmCpuNanos();
		Process process = new ProcessBuilder("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
				"--latency", "-H", HttpBenchmark.API_KEY_HEADER + ": bench-client", url).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("wrk failed on " + url + ":\n" + output);
		}
		long appCpuNanos = RedisCounters.jvmCpuNanos() - appCpuBefore;
		double redisCpu = RedisCounters.redisCpuSeconds(jedis) - redisCpuBefore;
		long scriptCalls = RedisCounters.scriptCalls(jedis) - scriptCallsBefore;
		long calls = RedisCounters.clientCalls(jedis) - callsBefore;
		long requests = Long.parseLong(find(REQUESTS, output, url));
		Matcher non2xx = NON_2XX.matcher(output);
		long failed = non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0;
		Map<String, Double> percentiles = new HashMap<>();
		Matcher percentile = PERCENTILE.matcher(output);
		while (percentile.find()) {
			double value = Double.parseDouble(percentile.group(2));
			double ms = switch (percentile.group(3)) {
				case "us" -> value / 1000;
				case "s" -> value * 1000;
				default -> value;
			};
			percentiles.put(percentile.group(1), ms);
		}
		return new HttpBenchmark.Measurement(Double.parseDouble(find(REQUESTS_PER_SECOND, output, url)),
				percentiles.getOrDefault("50", Double.NaN), percentiles.getOrDefault("99", Double.NaN),
				(double) failed / requests, (double) calls / requests, (double) scriptCalls / requests,
				appCpuNanos / 1e3 / requests, redisCpu * 1e6 / requests);
	}

	private static String find(Pattern pattern, String output, String url) {
		Matcher matcher = pattern.matcher(output);
		if (!matcher.find()) {
			throw new IllegalStateException("no " + pattern + " in wrk's output for " + url + ":\n" + output);
		}
		return matcher.group(1);
	}

}
