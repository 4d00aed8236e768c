package dev.ratelimit.spring.aop;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.ratelimit.spring.RateLimitExceededException;
import dev.ratelimit.spring.RateLimited;
import dev.ratelimit.spring.test.NoBlocking;
import dev.ratelimit.test.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Waiting for a lease ({@code maxWait} on a concurrency limit), outside requests, on a real Redis: a caller denied
 * a lease is woken when one is given back (on another instance too), the callers of one instance in the order they
 * came, one per release, with no decision in between (the limit's lease time is a minute, and the concurrency hint
 * of 1 s is not polled); blocking, as a {@code CompletionStage} and as a {@code Mono}, with Lettuce, Jedis and the
 * in-memory store; a cancelled waiter leaves the release to the next; the max wait ends a wait. Each call holds
 * its lease until the test lets it go, so only the absence of polling is measured in time.
 */
@ExtendWith(NoBlocking.class)
class LeaseWaitIntegrationTests {

	@AfterEach
	void letEveryCallGo() throws InterruptedException {
		Holds.releaseAll();
	}

	@Test
	void waitingCallersTakeLeasesInTheOrderTheyCameOnePerReleaseWithoutPolling() throws Exception {
		String prefix = "lease-waits-" + UUID.randomUUID() + ":";
		try (ConfigurableApplicationContext first = start(prefix, "lettuce");
				ConfigurableApplicationContext second = start(prefix, "lettuce")) {
			Exports waiting = first.getBean(Exports.class);
			String customer = UUID.randomUUID().toString();
			Holds.run(() -> second.getBean(Exports.class).blocking(customer, "holder"));
			waitUntil(() -> Holds.entered.contains("holder"), "the holder running");
			for (int i = 1; i <= 3; i++) {
				String call = "waiter-" + i;
				Holds.run(() -> waiting.blocking(customer, call));
				// denied, then denied again once it listens (a release may have come in between): then it waits
				int denials = 2 * i;
				waitUntil(() -> denied(first) == denials, call + " waiting");
			}
			// what polling would show: decisions while nothing is given back (the concurrency hint is 1 s)
			Thread.sleep(2500);
			assertThat(denied(first)).as("no decision while no lease is given back").isEqualTo(6);

			Holds.release("holder");
			waitUntil(() -> Holds.entered.contains("waiter-1"), "waiter-1 running");
			Holds.release("waiter-1");
			waitUntil(() -> Holds.entered.contains("waiter-2"), "waiter-2 running");
			Holds.release("waiter-2");
			waitUntil(() -> Holds.entered.contains("waiter-3"), "waiter-3 running");
			Holds.release("waiter-3");
			waitUntil(() -> Holds.done.size() == 4, "every call done");

			assertThat(Holds.entered).containsExactly("holder", "waiter-1", "waiter-2", "waiter-3");
			assertThat(Holds.mostAtOnce()).isEqualTo(1);
			assertThat(denied(first)).as("each release woke one caller, who took the lease").isEqualTo(6);
			assertThat(denied(second)).isZero();
		}
	}

	@ParameterizedTest
	@CsvSource({ "blocking, lettuce", "completion-stage, lettuce", "mono, lettuce", "blocking, jedis",
			"mono, jedis", "blocking, in-memory", "mono, in-memory" })
	void aCallerDeniedALeaseIsAdmittedWhenOneIsGivenBack(String style, String store) throws Exception {
		try (ConfigurableApplicationContext context = start("lease-waits-" + UUID.randomUUID() + ":", store)) {
			Exports exports = context.getBean(Exports.class);
			String customer = UUID.randomUUID().toString();
			Holds.run(() -> exports.blocking(customer, "holder"));
			waitUntil(() -> Holds.entered.contains("holder"), "the holder running");
			CompletableFuture<String> waiter = call(exports, style, customer, "waiter");
			waitUntil(() -> denied(context) == 2, "the waiter waiting");

			Holds.release("holder");
			waitUntil(() -> Holds.entered.contains("waiter"), "the waiter running (woken: its lease time is a minute)");
			Holds.release("waiter");
			assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("done waiter");
			assertThat(denied(context)).isEqualTo(2);
		}
	}

	@Test
	void aWaiterCancelledWhileItWaitsLeavesTheReleaseToTheNext() throws Exception {
		try (ConfigurableApplicationContext context = start("lease-waits-" + UUID.randomUUID() + ":", "lettuce")) {
			Exports exports = context.getBean(Exports.class);
			String customer = UUID.randomUUID().toString();
			Holds.run(() -> exports.blocking(customer, "holder"));
			waitUntil(() -> Holds.entered.contains("holder"), "the holder running");
			Disposable cancelled = exports.mono(customer, "cancelled").subscribe();
			waitUntil(() -> denied(context) == 2, "the first waiter waiting");
			Holds.run(() -> exports.blocking(customer, "next"));
			waitUntil(() -> denied(context) == 4, "the next waiter waiting");
			cancelled.dispose();

			Holds.release("holder");
			waitUntil(() -> Holds.entered.contains("next"), "the next waiter running");
			assertThat(Holds.entered).doesNotContain("cancelled");
		}
	}

	@Test
	void aWaitForALeaseEndsAtItsMaxWaitWithTheDenial() throws Exception {
		try (ConfigurableApplicationContext context = start("lease-waits-" + UUID.randomUUID() + ":", "lettuce")) {
			Exports exports = context.getBean(Exports.class);
			String customer = UUID.randomUUID().toString();
			Holds.run(() -> exports.blocking(customer, "holder"));
			waitUntil(() -> Holds.entered.contains("holder"), "the holder running");
			long start = System.nanoTime();
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> exports.impatient(customer, "impatient"))
				.satisfies((ex) -> assertThat(ex.getRetryAfterMs()).isEqualTo(1000));
			assertThat((System.nanoTime() - start) / 1_000_000).as("waited its max wait of 1 s")
				.isGreaterThanOrEqualTo(1000);
			assertThat(denied(context)).as("no decision while it waited").isEqualTo(2);
		}
	}

	private static CompletableFuture<String> call(Exports exports, String style, String customer, String call) {
		return switch (style) {
			case "blocking" -> CompletableFuture.supplyAsync(() -> exports.blocking(customer, call),
					Holds.threads);
			case "completion-stage" -> exports.stage(customer, call).toCompletableFuture();
			default -> exports.mono(customer, call).toFuture();
		};
	}

	/** The concurrency denials of one instance. */
	private static long denied(ConfigurableApplicationContext context) {
		Counter denied = context.getBean(MeterRegistry.class)
			.find("ratelimit.decisions")
			.tag("limit", "exports")
			.tag("outcome", "denied")
			.counter();
		return (denied != null) ? (long) denied.count() : 0;
	}

	private static void waitUntil(BooleanSupplier condition, String what) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as(() -> "waiting for " + what + " (entered " + Holds.entered + ", done "
					+ Holds.done + ")").isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	private static ConfigurableApplicationContext start(String prefix, String store) {
		String client = store.equals("in-memory") ? "--ratelimit.store=in-memory"
				: "--ratelimit.redis.client=" + store;
		return new SpringApplicationBuilder(LeaseWaitApplication.class).run("--spring.main.web-application-type=none",
				"--spring.data.redis.url=" + TestRedis.shared().url(), "--ratelimit.key-prefix=" + prefix, client,
				// exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open
				"--ratelimit.redis.timeout=30s");
	}

	/** The calls that the test lets go one by one, in this JVM for both instances. */
	static final class Holds {

		static final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors
			.newCachedThreadPool();

		static final ConcurrentLinkedQueue<String> entered = new ConcurrentLinkedQueue<>();

		static final ConcurrentLinkedQueue<String> done = new ConcurrentLinkedQueue<>();

		private static final ConcurrentHashMap<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();

		private static final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

		private static final java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();

		static void run(Runnable call) {
			threads.execute(call);
		}

		/** Runs as the call named {@code call}, until the test lets it go. */
		static String hold(String call) {
			entered.add(call);
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				gate(call).get(60, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				running.decrementAndGet();
				done.add(call);
			}
			return "done " + call;
		}

		static void release(String call) {
			gate(call).complete(null);
		}

		static int mostAtOnce() {
			return most.get();
		}

		/** Lets every call go, and forgets them once none runs: the next test starts afresh. */
		static void releaseAll() throws InterruptedException {
			gates.values().forEach((gate) -> gate.complete(null));
			waitUntil(() -> running.get() == 0, "every call of the test ended");
			gates.clear();
			entered.clear();
			done.clear();
			most.set(0);
		}

		private static CompletableFuture<Void> gate(String call) {
			return gates.computeIfAbsent(call, (key) -> new CompletableFuture<>());
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Exports.class)
	static class LeaseWaitApplication {

	}

	/** One export per customer at a time, across instances; a lease time of a minute; waiting up to a minute. */
	@Service
	static class Exports {

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 1, window = "60s", key = "#customer",
				maxWait = "60s")
		String blocking(String customer, String call) {
			return Holds.hold(call);
		}

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 1, window = "60s", key = "#customer",
				maxWait = "60s")
		CompletableFuture<String> stage(String customer, String call) {
			return CompletableFuture.supplyAsync(() -> Holds.hold(call), Holds.threads);
		}

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 1, window = "60s", key = "#customer",
				maxWait = "60s")
		Mono<String> mono(String customer, String call) {
			return Mono.fromCallable(() -> Holds.hold(call)).subscribeOn(Schedulers.boundedElastic());
		}

		@RateLimited(name = "exports", algorithm = "concurrency", limit = 1, window = "60s", key = "#customer",
				maxWait = "1s")
		String impatient(String customer, String call) {
			return Holds.hold(call);
		}

	}

}
