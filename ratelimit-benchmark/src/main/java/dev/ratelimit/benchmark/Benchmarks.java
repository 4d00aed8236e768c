package dev.ratelimit.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.benchmark.http.HttpBenchmark;
import dev.ratelimit.benchmark.http.WaitedCalls;
import dev.ratelimit.test.TestRedis;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPooled;

/**
 * The benchmark's one command: {@code java -jar ratelimit-benchmark/target/ratelimit-benchmark.jar [part] [options]}.
 * It starts its own {@code redis-server} ({@link TestRedis}) and runs the parts, each in interleaved rounds:
 * {@code api} ({@link JavaApiBenchmark}), {@code http} ({@link HttpBenchmark}, needs {@code wrk}),
 * {@code offered-load} ({@link OfferedLoad}, the lesson's exercise 4), {@code waits} ({@link WaitedCalls}: calls
 * waiting for permits against their limit), {@code script-cpu} ({@link ScriptCpu}: the scripts' cost inside Redis),
 * or {@code all} (the default), which also draws the ratios ({@link RatioChart}) into {@code --chart}. Every option is
 * checked before anything runs: a bad one ends the command at once with a message and the usage. See
 * {@code docs/BENCHMARKS.md}.
 */
public final class Benchmarks {

	/** The options each part reads. */
	private static final Map<String, List<String>> PARTS = Map.of(
			"all", List.of("threads", "seconds", "rounds", "warmup", "only", "http-seconds", "connections",
					"wrk-threads", "load-seconds", "wait-seconds", "script-rounds", "script-calls", "chart"),
			"api", List.of("threads", "seconds", "rounds", "warmup", "only"),
			"http", List.of("rounds", "only", "http-seconds", "connections", "wrk-threads"),
			"offered-load", List.of("threads", "load-seconds"),
			"waits", List.of("threads", "wait-seconds"),
			"script-cpu", List.of("script-rounds", "script-calls"));

	private static final String USAGE = """
			usage: java -jar ratelimit-benchmark/target/ratelimit-benchmark.jar [all|api|http|offered-load|waits|script-cpu] [--name=value ...]
			  api:          --threads=16 --seconds=2 --rounds=3 --warmup=1 --only=<text in scenario names>
			  http:         --rounds=3 --http-seconds=5 --connections=16 --wrk-threads=2 --only=<text>  (needs wrk)
			  offered-load: --threads=16 --load-seconds=10
			  waits:        --threads=16 --wait-seconds=5
			  script-cpu:   --script-rounds=41 --script-calls=500
			  all:          all of the above, and --chart=ratelimit-benchmark/target/benchmark-ratios.png
			See docs/BENCHMARKS.md.""";

	private Benchmarks() {
	}

	public static void main(String[] args) throws Exception {
		if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
			System.out.println(USAGE);
			return;
		}
		Plan plan;
		try {
			plan = Plan.of(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println("error: " + ex.getMessage());
			System.err.println(USAGE);
			System.exit(2);
			return;
		}
		plan.run();
	}

	/** What a command line asks for, every option read and checked. */
	private record Plan(String part, JavaApiBenchmark.@Nullable Settings api, HttpBenchmark.@Nullable Settings http,
			OfferedLoad.@Nullable Settings load, WaitedCalls.@Nullable Settings waits,
			ScriptCpu.@Nullable Settings scripts, @Nullable Path chart) {

		/** @throws IllegalArgumentException for an unknown part or option, a bad value, or a missing wrk */
		static Plan of(String[] args) throws InterruptedException {
			int first = (args.length > 0 && !args[0].startsWith("-")) ? 1 : 0;
			String part = (first == 1) ? args[0] : "all";
			if (!PARTS.containsKey(part)) {
				throw new IllegalArgumentException(
						"unknown part '" + part + "'; use all, api, http, offered-load, waits or script-cpu");
			}
			Options options = new Options(Arrays.asList(args).subList(first, args.length), PARTS.get(part));
			boolean all = part.equals("all");
			HttpBenchmark.Settings http = (all || part.equals("http")) ? HttpBenchmark.Settings.of(options) : null;
			if (http != null) {
				HttpBenchmark.requireWrk();
			}
			return new Plan(part, (all || part.equals("api")) ? JavaApiBenchmark.Settings.of(options) : null, http,
					(all || part.equals("offered-load")) ? OfferedLoad.Settings.of(options) : null,
					(all || part.equals("waits")) ? WaitedCalls.Settings.of(options) : null,
					(all || part.equals("script-cpu")) ? ScriptCpu.Settings.of(options) : null,
					all ? chart(options.text("chart", "ratelimit-benchmark/target/benchmark-ratios.png")) : null);
		}

		private static Path chart(String file) {
			Path chart = Path.of(file).toAbsolutePath();
			if (file.isBlank() || Files.isDirectory(chart)) {
				throw new IllegalArgumentException("--chart must name a PNG file to write, but was '" + file + "'");
			}
			return chart;
		}

		@SuppressWarnings("NullAway") // a chart only for all the parts: the api and http results exist
		void run() throws Exception {
			int threads = (this.api != null) ? this.api.threads() : (this.load != null) ? this.load.threads() : 1;
			GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
			pool.setMaxTotal(threads);
			pool.setMaxIdle(threads);
			try (TestRedis redis = TestRedis.start();
					JedisPooled jedis = new JedisPooled(pool, redis.host(), redis.port())) {
				System.out.printf(Locale.ROOT, "Redis %s on %s:%d, Java %s, %d cores%n",
						JavaApiBenchmark.version(jedis.info("server")), redis.host(), redis.port(),
						System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
				Map<String, JavaApiBenchmark.Measurement> apiResults = null;
				Map<String, HttpBenchmark.Measurement> httpResults = null;
				if (this.api != null) {
					apiResults = JavaApiBenchmark.run(this.api, redis, jedis);
				}
				if (this.http != null) {
					jedis.flushAll();
					httpResults = HttpBenchmark.run(this.http, redis, jedis);
				}
				if (this.load != null) {
					jedis.flushAll();
					OfferedLoad.run(this.load, jedis);
				}
				if (this.waits != null) {
					jedis.flushAll();
					WaitedCalls.run(this.waits, redis, jedis);
				}
				if (this.scripts != null) {
					jedis.flushAll();
					ScriptCpu.run(this.scripts, jedis);
				}
				if (this.chart != null) {
					RatioChart.draw(apiResults, httpResults, this.chart);
					System.out.printf(Locale.ROOT, "%nchart of the ratios: %s%n", this.chart);
				}
			}
		}

	}

}
