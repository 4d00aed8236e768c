package dev.ratelimit.spring.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many callers waiting for a permit of one limit, on a real Redis: in one instance only the longest waiting caller
 * asks Redis, the others wait behind it (PermitLines), so the permits cost about one script call each, for every
 * algorithm and way of waiting; two instances on one Redis each have a line of their own. Before the lines, 16
 * callers of a token bucket all woke at the same retry-after and one won: about 11 script calls per permit.
 */
class WaitingCallersIntegrationTests {

	/** Callers per instance. */
	private static final int CALLERS = 16;

	/** Calls each caller makes, one after the other. */
	private static final int CALLS = 6;

	@ParameterizedTest
	@CsvSource({ "token-bucket, blocking", "token-bucket, completion-stage", "token-bucket, mono",
			"sliding-window-counter, blocking", "fixed-window, completion-stage", "sliding-log, mono" })
	void callersWaitingInOneInstanceCostAboutOneScriptCallPerPermit(String algorithm, String style) throws Exception {
		try (ConfigurableApplicationContext app = start("waiting-" + UUID.randomUUID() + ":")) {
			Calls calls = new Calls(List.of(app));
			calls.run(algorithm, style, "acme");
			assertThat(calls.permits).isEqualTo(CALLERS * CALLS);
			assertThat((double) calls.scriptCalls / calls.permits).as("script calls per permit").isLessThanOrEqualTo(1.5);
		}
	}

	@ParameterizedTest
	@CsvSource({ "token-bucket, blocking", "sliding-window-counter, mono" })
	void callersWaitingInTwoInstancesCostAtMostThreeScriptCallsPerPermit(String algorithm, String style)
			throws Exception {
		String prefix = "waiting-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(prefix); ConfigurableApplicationContext second = start(prefix)) {
			Calls calls = new Calls(List.of(first, second));
			calls.run(algorithm, style, "acme");
			assertThat(calls.permits).isEqualTo(2 * CALLERS * CALLS);
			assertThat((double) calls.scriptCalls / calls.permits).as("script calls per permit").isLessThanOrEqualTo(3);
		}
	}

	@Test
	void aStageCancelledWhileItWaitsNeverRunsItsMethodAndLeavesThePermitToTheNextCaller() throws Exception {
		try (ConfigurableApplicationContext app = start("waiting-" + UUID.randomUUID() + ":")) {
			Waiting waiting = app.getBean(Waiting.class);
			Counted counted = app.getBean(Counted.class);
			long start = System.nanoTime();
			assertThat(waiting.counted("acme").toCompletableFuture().get(60, TimeUnit.SECONDS)).isEqualTo(1);
			// the bucket is empty: the next call waits for the token due in 3 s
			CompletableFuture<Integer> cancelled = waiting.counted("acme").toCompletableFuture();
			assertThat(cancelled.cancel(false)).isTrue();
			// the next caller takes that token, not the one after it (6 s): the cancelled call's wait ended, and its
			// method never ran
			assertThat(waiting.counted("acme").toCompletableFuture().get(60, TimeUnit.SECONDS)).isEqualTo(2);
			assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_500);
			assertThat(counted.calls).hasValue(2);
		}
	}

	/** {@link #CALLERS} callers per instance, each making {@link #CALLS} calls as soon as the last is admitted. */
	private static final class Calls {

		private final List<ConfigurableApplicationContext> apps;

		int permits;

		long scriptCalls;

		Calls(List<ConfigurableApplicationContext> apps) {
			this.apps = apps;
		}

		void run(String algorithm, String style, String account) throws Exception {
			long before = scriptCalls();
			ExecutorService threads = Executors.newFixedThreadPool(CALLERS * this.apps.size());
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Integer>> callers = new ArrayList<>();
				for (ConfigurableApplicationContext app : this.apps) {
					Waiting waiting = app.getBean(Waiting.class);
					for (int i = 0; i < CALLERS; i++) {
						callers.add(threads.submit(() -> {
							start.await();
							for (int call = 0; call < CALLS; call++) {
								assertThat(call(waiting, algorithm, style, account)).isEqualTo("called " + account);
							}
							return CALLS;
						}));
					}
				}
				start.countDown();
				for (Future<Integer> caller : callers) {
					this.permits += caller.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				threads.shutdownNow();
			}
			this.scriptCalls = scriptCalls() - before;
		}

		private long scriptCalls() {
			long calls = 0;
			for (ConfigurableApplicationContext app : this.apps) {
				calls += app.getBean(MeterRegistry.class)
					.find("ratelimit.redis.calls")
					.timers()
					.stream()
					.mapToLong(Timer::count)
					.sum();
			}
			return calls;
		}

		private static String call(Waiting waiting, String algorithm, String style, String account) throws Exception {
			return switch (style) {
				case "blocking" -> switch (algorithm) {
					case "token-bucket" -> waiting.tokenBucket(account);
					case "sliding-window-counter" -> waiting.slidingWindowCounter(account);
					default -> waiting.slidingLog(account);
				};
				case "completion-stage" -> switch (algorithm) {
					case "token-bucket" -> waiting.tokenBucketStage(account).toCompletableFuture().get(60, TimeUnit.SECONDS);
					default -> waiting.fixedWindowStage(account).toCompletableFuture().get(60, TimeUnit.SECONDS);
				};
				default -> switch (algorithm) {
					case "token-bucket" -> waiting.tokenBucketMono(account).block(Duration.ofSeconds(60));
					case "sliding-window-counter" -> waiting.slidingWindowCounterMono(account).block(Duration.ofSeconds(60));
					default -> waiting.slidingLogMono(account).block(Duration.ofSeconds(60));
				};
			};
		}

	}

	private static ConfigurableApplicationContext start(String prefix) {
		return new SpringApplicationBuilder(WaitingApplication.class).run("--spring.main.web-application-type=none",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix,
				// a loaded machine must not turn a slow answer into fail-open
				"--ratelimit.redis.timeout=30s");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Waiting.class, Counted.class })
	static class WaitingApplication {

	}

	/** How many times {@link Waiting#counted} ran. */
	static class Counted {

		final AtomicInteger calls = new AtomicInteger();

	}

	/**
	 * 40 per second for each algorithm, waiting up to 30 s: 16 callers making 6 calls each spend the first window's
	 * (or the bucket's) 40 at once and wait for the rest.
	 */
	@Service
	static class Waiting {

		private final Counted counted;

		Waiting(Counted counted) {
			this.counted = counted;
		}

		/** One token every 3 s, counted when the method runs. */
		@RateLimited(name = "counted", algorithm = "token-bucket", limit = 1, window = "3s", key = "#account",
				maxWait = "30s")
		CompletionStage<Integer> counted(String account) {
			return CompletableFuture.completedFuture(this.counted.calls.incrementAndGet());
		}

		@RateLimited(name = "tb", algorithm = "token-bucket", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		String tokenBucket(String account) {
			return "called " + account;
		}

		@RateLimited(name = "tb", algorithm = "token-bucket", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		CompletionStage<String> tokenBucketStage(String account) {
			return CompletableFuture.completedFuture("called " + account);
		}

		@RateLimited(name = "tb", algorithm = "token-bucket", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		Mono<String> tokenBucketMono(String account) {
			return Mono.just("called " + account);
		}

		@RateLimited(name = "swc", algorithm = "sliding-window-counter", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		String slidingWindowCounter(String account) {
			return "called " + account;
		}

		@RateLimited(name = "swc", algorithm = "sliding-window-counter", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		Mono<String> slidingWindowCounterMono(String account) {
			return Mono.just("called " + account);
		}

		@RateLimited(name = "fw", algorithm = "fixed-window", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		CompletionStage<String> fixedWindowStage(String account) {
			return CompletableFuture.completedFuture("called " + account);
		}

		@RateLimited(name = "sl", algorithm = "sliding-log", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		String slidingLog(String account) {
			return "called " + account;
		}

		@RateLimited(name = "sl", algorithm = "sliding-log", limit = 40, window = "1s", key = "#account",
				maxWait = "30s")
		Mono<String> slidingLogMono(String account) {
			return Mono.just("called " + account);
		}

	}

}
