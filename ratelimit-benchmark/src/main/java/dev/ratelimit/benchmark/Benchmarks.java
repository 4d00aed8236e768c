package dev.ratelimit.benchmark;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.benchmark.http.HttpBenchmark;
import dev.ratelimit.test.TestRedis;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPooled;

/**
 * The benchmark's one command: {@code java -jar ratelimit-benchmark/target/ratelimit-benchmark.jar [part] [options]}.
 * It starts its own {@code redis-server} ({@link TestRedis}: the one on the PATH, else the binary of embedded-redis)
 * and runs the parts, each in interleaved rounds: {@code api} ({@link JavaApiBenchmark}), {@code http}
 * ({@link dev.ratelimit.benchmark.http.HttpBenchmark}, needs {@code wrk}), {@code offered-load} ({@link OfferedLoad},
 * the lesson's exercise 4), or {@code all} (the default). With {@code api} and {@code http} both run, it draws the
 * ratios ({@link RatioChart}) into {@code --chart} (default {@code ratelimit-benchmark/target/benchmark-ratios.png}).
 * See {@code docs/BENCHMARKS.md}.
 */
public final class Benchmarks {

	private static final List<String> PARTS = List.of("all", "api", "http", "offered-load");

	private static final List<String> OPTIONS = List.of("threads", "seconds", "rounds", "warmup", "only",
			"http-seconds", "connections", "wrk-threads", "load-seconds", "chart");

	private Benchmarks() {
	}

	public static void main(String[] args) throws Exception {
		int first = (args.length > 0 && !args[0].startsWith("--")) ? 1 : 0;
		String part = (first == 1) ? args[0] : "all";
		if (!PARTS.contains(part)) {
			throw new IllegalArgumentException("unknown part " + part + "; use one of " + PARTS);
		}
		Options options = new Options(Arrays.asList(args).subList(first, args.length), OPTIONS);
		boolean all = part.equals("all");
		int threads = JavaApiBenchmark.threads(options);
		GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(threads);
		pool.setMaxIdle(threads);
		try (TestRedis redis = TestRedis.start(); JedisPooled jedis = new JedisPooled(pool, redis.host(), redis.port())) {
			System.out.printf(Locale.ROOT, "Redis %s on %s:%d, Java %s, %d cores%n",
					JavaApiBenchmark.version(jedis.info("server")), redis.host(), redis.port(),
					System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
			Map<String, JavaApiBenchmark.Measurement> api = null;
			Map<String, HttpBenchmark.Measurement> http = null;
			if (all || part.equals("api")) {
				api = JavaApiBenchmark.run(options, jedis);
			}
			if (all || part.equals("http")) {
				jedis.flushAll();
				http = HttpBenchmark.run(options, redis, jedis);
			}
			if (all || part.equals("offered-load")) {
				jedis.flushAll();
				OfferedLoad.run(options, jedis);
			}
			if (api != null && http != null) {
				Path chart = Path.of(options.text("chart", "ratelimit-benchmark/target/benchmark-ratios.png"));
				RatioChart.draw(api, http, chart);
				System.out.printf(Locale.ROOT, "%nchart of the ratios: %s%n", chart.toAbsolutePath());
			}
		}
	}

}
