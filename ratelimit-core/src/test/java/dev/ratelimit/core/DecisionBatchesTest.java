package dev.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.redis.EventLoopTimeouts;
import dev.ratelimit.core.redis.JedisScriptExecutor;
import dev.ratelimit.core.redis.LettuceScriptExecutor;
import dev.ratelimit.test.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.JedisPooled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decisions through batches ({@link DecisionBatches}) on a real Redis, through Jedis (a blocking executor: callers
 * lead and follow) and Lettuce (asynchronous: a call's completion sends the next): concurrent callers decide exactly
 * as a sequential replay of the order the scripts saw, a hot key admits exactly its limit, one member's script error
 * is answered to it alone, and a member given up before its batch leaves is never sent.
 */
class DecisionBatchesTest {

	private static final long T0 = ReferenceResults.T0;

	private static final int THREADS = 16;

	private static final AtomicInteger PREFIXES = new AtomicInteger();

	private static JedisPooled jedis;

	private static RedisClient lettuce;

	private static LettuceScriptExecutor lettuceExecutor;

	enum Client {

		JEDIS, LETTUCE

	}

	@BeforeAll
	static void connect() {
		jedis = SharedJedis.get();
		TestRedis redis = TestRedis.shared();
		lettuce = RedisClient.create();
		RedisURI uri = RedisURI.create(redis.url());
		lettuceExecutor = new LettuceScriptExecutor(() -> lettuce.connectAsync(StringCodec.UTF8, uri).toCompletableFuture(),
				List.of(), Duration.ofSeconds(5), new EventLoopTimeouts(lettuce.getResources()::eventExecutorGroup),
				lettuce::shutdown);
	}

	@AfterAll
	static void close() {
		lettuceExecutor.close();
	}

	/**
	 * 16 threads of 4 clients, each request one or two limits of any algorithm (concurrency limits and calendar periods
	 * included) and a cost of 1 to 3, every decision at
	 * its own time (a clock that moves 1 ms each read): each is then replayed alone, in the order the scripts saw
	 * them (the calls of one lane leave one after the other; a batch lists its members in order), and must be answered
	 * the same, every field. A batch that reordered its members, let a member miss an earlier one's write, or gave a
	 * member another's answer fails it.
	 */
	@ParameterizedTest
	@EnumSource(Client.class)
	void concurrentDecisionsAreASequentialReplayOfTheOrderTheScriptsSaw(Client client) throws Exception {
		Recorder recorder = recorder(client);
		TickingClock clock = new TickingClock(T0);
		String prefix = prefix();
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		RedisRateLimiter limiter = new RedisRateLimiter(recorder, prefix).withClock(clock).withBatchSizes(sizes::add);
		// short windows: a key lives its window and a second of margin in Redis' real time, which this test's
		// simulated time (960 ms in all) must not outrun by more than that even on a loaded machine
		List<LimitDefinition> shapes = List.of(LimitDefinition.of("tb", Algorithm.TOKEN_BUCKET, 6, Duration.ofMillis(50)),
				LimitDefinition.of("fw", Algorithm.FIXED_WINDOW, 5, Duration.ofMillis(40)),
				LimitDefinition.of("sl", Algorithm.SLIDING_LOG, 4, Duration.ofMillis(30)),
				LimitDefinition.of("swc", Algorithm.SLIDING_WINDOW_COUNTER, 6, Duration.ofMillis(60)),
				LimitDefinition.of("cc", Algorithm.CONCURRENCY, 3, Duration.ofMillis(40)),
				LimitDefinition.calendar("day", 150, CalendarPeriod.of(CalendarPeriod.Unit.DAY)));
		Map<Long, Decided> decided = new java.util.concurrent.ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				done.add(threads.submit(() -> {
					SplittableRandom random = new SplittableRandom(thread);
					for (int i = 0; i < 60; i++) {
						String id = "c" + random.nextInt(4);
						List<LimitRequest> limits = new ArrayList<>();
						int first = random.nextInt(shapes.size());
						limits.add(request(shapes.get(first), 1 + random.nextInt(3)));
						if (random.nextBoolean()) {
							limits.add(request(shapes.get((first + 1 + random.nextInt(shapes.size() - 1)) % shapes.size()),
									1 + random.nextInt(2)));
						}
						RateLimitDecision decision = (client == Client.LETTUCE && thread % 2 == 1)
								? limiter.tryAcquireAsync(id, limits).toCompletableFuture().join()
								: limiter.tryAcquire(id, limits);
						decided.put(clock.lastRead(), new Decided(id, limits, decision));
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		int decisions = THREADS * 60;
		assertThat(decided).hasSize(decisions);
		List<Long> order = recorder.decisionTimes();
		assertThat(order).hasSize(decisions).doesNotHaveDuplicates();
		assertThat(recorder.calls()).as("batches formed").isLessThan(decisions);
		assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(decisions);
		assertThat(sizes).hasSize(recorder.calls()).anyMatch((size) -> size > 1);

		MutableClock replayClock = new MutableClock(T0);
		RateLimiter replay = new RedisRateLimiter(new JedisScriptExecutor(jedis), prefix()).withoutBatches()
			.withClock(replayClock);
		int admitted = 0;
		for (long time : order) {
			Decided original = decided.get(time);
			replayClock.set(time);
			assertThat(original.decision().decisions()).as("decision at %d of %s", time, original.clientId())
				.isEqualTo(replay.tryAcquire(original.clientId(), original.limits()).decisions());
			admitted += original.decision().allowed() ? 1 : 0;
		}
		// the traffic both admits and denies, so that an order changed would show
		assertThat(admitted).isBetween(decisions / 10, decisions * 9 / 10);
	}

	/** 16 threads, one client's token bucket of 100 that does not refill in the test: exactly 100 admitted. */
	@ParameterizedTest
	@EnumSource(Client.class)
	void aHotKeyAdmitsExactlyItsLimit(Client client) throws Exception {
		Recorder recorder = recorder(client);
		RateLimiter limiter = new RedisRateLimiter(recorder, prefix());
		LimitDefinition global = LimitDefinition.of("global", Algorithm.TOKEN_BUCKET, 100, Duration.ofHours(1));
		AtomicInteger admitted = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				done.add(threads.submit(() -> {
					for (int i = 0; i < 20; i++) {
						RateLimitDecision decision = (client == Client.LETTUCE && thread % 2 == 1)
								? limiter.tryAcquireAsync("hot", List.of(global.request())).toCompletableFuture().join()
								: limiter.tryAcquire("hot", List.of(global.request()));
						admitted.addAndGet(decision.allowed() ? 1 : 0);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(admitted).hasValue(100);
		assertThat(recorder.calls()).as("batches formed").isLessThan(THREADS * 20);
	}

	/**
	 * A batch of three, the second's key of another type (WRONGTYPE): the second fails with Redis' error, the first
	 * and the third are decided, in the one call of the batch.
	 */
	@ParameterizedTest
	@EnumSource(Client.class)
	void oneMembersScriptErrorIsAnsweredToItAlone(Client client) throws Exception {
		Recorder recorder = recorder(client);
		String prefix = prefix();
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		RateLimiter limiter = new RedisRateLimiter(recorder, prefix).withBatchSizes(sizes::add);
		LimitDefinition api = LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(1));
		jedis.hset(new RedisKeys(prefix).key("broken", api), "not", "a bucket");
		Batch batch = new Batch(limiter, recorder, client);
		batch.holdFirst("first", List.of(api.request()));
		CompletableFuture<RateLimitDecision> good = batch.queue("good", List.of(api.request(3)));
		CompletableFuture<RateLimitDecision> broken = batch.queue("broken", List.of(api.request()));
		CompletableFuture<RateLimitDecision> after = batch.queue("good", List.of(api.request(2)));
		batch.release();

		assertThat(good.get(10, TimeUnit.SECONDS).decisions().get(0).allowance().remaining()).isEqualTo(7);
		assertThat(after.get(10, TimeUnit.SECONDS).decisions().get(0).allowance().remaining()).isEqualTo(5);
		assertThatThrownBy(() -> broken.get(10, TimeUnit.SECONDS)).hasMessageContaining("WRONGTYPE");
		assertThat(recorder.calls()).isEqualTo(2);
		assertThat(sizes).containsExactlyInAnyOrder(1, 3);
	}

	/**
	 * A burst does not queue behind one call: the decisions that make a full batch leave at once, in a second call
	 * beside the one in flight, and are answered while it still is (without, they would wait for it: held here).
	 */
	@ParameterizedTest
	@EnumSource(value = Client.class, names = "LETTUCE")
	void aFullBatchLeavesBesideTheCallInFlight(Client client) throws Exception {
		Recorder recorder = recorder(client);
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		RateLimiter limiter = new RedisRateLimiter(recorder, prefix()).withBatchSizes(sizes::add);
		LimitDefinition api = LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 100, Duration.ofHours(1));
		Batch batch = new Batch(limiter, recorder, client);
		batch.holdFirst("first", List.of(api.request()));
		List<CompletableFuture<RateLimitDecision>> burst = new ArrayList<>();
		for (int i = 0; i < BatchLane.MAX_MEMBERS + 1; i++) {
			burst.add(batch.queue("burst", List.of(api.request())));
		}
		// the full batch decided while the first is held; the one after it leaves when either call returns
		for (CompletableFuture<RateLimitDecision> decided : burst.subList(0, BatchLane.MAX_MEMBERS)) {
			assertThat(decided.get(10, TimeUnit.SECONDS).allowed()).isTrue();
		}
		assertThat(recorder.calls()).isBetween(2, 3);
		batch.release();

		assertThat(burst.get(BatchLane.MAX_MEMBERS).get(10, TimeUnit.SECONDS).allowed()).isTrue();
		assertThat(recorder.calls()).isEqualTo(3);
		Batch.waitFor(() -> sizes.size() == 3);
		assertThat(sizes).containsExactlyInAnyOrder(BatchLane.MAX_MEMBERS, 1, 1);
	}

	/** A member whose caller gave up (the starter cancels at the deadline) while it queued is not sent: no cost. */
	@ParameterizedTest
	@EnumSource(value = Client.class, names = "LETTUCE")
	void aMemberGivenUpWhileQueuedIsNeverSent(Client client) throws Exception {
		Recorder recorder = recorder(client);
		RateLimiter limiter = new RedisRateLimiter(recorder, prefix());
		LimitDefinition api = LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 10, Duration.ofHours(1));
		Batch batch = new Batch(limiter, recorder, client);
		batch.holdFirst("other", List.of(api.request()));
		CompletableFuture<RateLimitDecision> late = batch.queue("late", List.of(api.request(4)));
		assertThat(late.cancel(false)).isTrue();
		batch.release();

		assertThat(limiter.tryAcquire("late", List.of(api.request())).decisions().get(0).allowance().remaining())
			.isEqualTo(9);
		assertThat(recorder.calls()).isEqualTo(2);
	}

	/** A request of {@code cost}, or a concurrency limit's lease of a call of its own (its cost is 1). */
	private static LimitRequest request(LimitDefinition limit, int cost) {
		if (limit.algorithm() == Algorithm.CONCURRENCY) {
			return limit.request().withLease(LimitRequest.newLeaseId());
		}
		return limit.request(cost);
	}

	private static String prefix() {
		return "batch" + PREFIXES.incrementAndGet() + "-" + System.nanoTime() + ":";
	}

	private static Recorder recorder(Client client) {
		return (client == Client.JEDIS) ? new Recorder(new JedisScriptExecutor(jedis))
				: new AsyncRecorder(lettuceExecutor);
	}

	private record Decided(String clientId, List<LimitRequest> limits, RateLimitDecision decision) {
	}

	/** Reads T0, T0 + 1, ...: every read its own ms, and each thread's last read kept for it. */
	private static final class TickingClock implements InstantSource {

		private final AtomicLong next;

		private final ThreadLocal<Long> last = new ThreadLocal<>();

		TickingClock(long start) {
			this.next = new AtomicLong(start);
		}

		@Override
		public Instant instant() {
			long now = this.next.getAndIncrement();
			this.last.set(now);
			return Instant.ofEpochMilli(now);
		}

		long lastRead() {
			return this.last.get();
		}

	}

	/**
	 * Records every script call as it is sent; a lane's calls leave one after the other, so the order recorded is the
	 * order Redis ran them. Blocking, as {@link JedisScriptExecutor} (the interface's {@code executeAsync}). Its first
	 * call can be held until released, so that the next ones queue behind it.
	 */
	static class Recorder implements ScriptExecutor {

		final ScriptExecutor delegate;

		/** Each call, as sent. */
		final List<Sent> calls = Collections.synchronizedList(new ArrayList<>());

		final CompletableFuture<Void> held = new CompletableFuture<>();

		volatile boolean holding;

		Recorder(ScriptExecutor delegate) {
			this.delegate = delegate;
		}

		@Override
		public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
			if (record(script, keys, args)) {
				this.held.join();
			}
			return this.delegate.execute(script, keys, args);
		}

		/** Records the call; whether it is the first, held. */
		boolean record(LuaScript script, List<String> keys, List<String> args) {
			synchronized (this.calls) {
				this.calls.add(new Sent(script.source().contains("-- batch.lua:"), keys, args));
				return this.holding && this.calls.size() == 1;
			}
		}

		int calls() {
			return this.calls.size();
		}

		/** The times of every decision, in the order the scripts decided them (ARGV of rate_limit.lua, batch.lua). */
		List<Long> decisionTimes() {
			List<Long> times = new ArrayList<>();
			synchronized (this.calls) {
				for (Sent call : this.calls) {
					List<String> args = call.args();
					if (call.batch()) {
						// batch.lua: the batch's time, the members, then per member n, its time, 6 n values
						int at = 2;
						for (int m = 0; m < Integer.parseInt(args.get(1)); m++) {
							int limits = Integer.parseInt(args.get(at));
							times.add(Long.parseLong(args.get(at + 1)));
							at += 2 + 6 * limits;
						}
						assertThat(at).isEqualTo(args.size());
					}
					else {
						times.add(Long.parseLong(args.get(0)));
					}
				}
			}
			return times;
		}

	}

	/** A script call: whether batch.lua's, its KEYS and ARGV. */
	record Sent(boolean batch, List<String> keys, List<String> args) {
	}

	/** {@link Recorder} for an asynchronous executor (Lettuce). */
	static final class AsyncRecorder extends Recorder {

		AsyncRecorder(ScriptExecutor delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<List<Long>> executeAsync(LuaScript script, List<String> keys, List<String> args) {
			if (record(script, keys, args)) {
				return this.held.thenCompose((ignored) -> this.delegate.executeAsync(script, keys, args));
			}
			return this.delegate.executeAsync(script, keys, args);
		}

	}

	/**
	 * A batch made on purpose: a first decision held in flight, the next ones queued behind it in a known order (a
	 * blocking executor's callers each on a thread, parked once queued), then released.
	 */
	private static final class Batch {

		private final RateLimiter limiter;

		private final Recorder recorder;

		private final Client client;

		private final List<Thread> threads = new ArrayList<>();

		Batch(RateLimiter limiter, Recorder recorder, Client client) {
			this.limiter = limiter;
			this.recorder = recorder;
			this.client = client;
			recorder.holding = true;
		}

		void holdFirst(String clientId, List<LimitRequest> limits) throws InterruptedException {
			queue(clientId, limits);
			waitFor(() -> this.recorder.calls() == 1);
		}

		CompletableFuture<RateLimitDecision> queue(String clientId, List<LimitRequest> limits)
				throws InterruptedException {
			if (this.client == Client.LETTUCE) {
				return this.limiter.tryAcquireAsync(clientId, limits).toCompletableFuture();
			}
			CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try {
					answer.complete(this.limiter.tryAcquire(clientId, limits));
				}
				catch (RuntimeException ex) {
					answer.completeExceptionally(ex);
				}
			});
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
			// parked: in flight (held) or queued, so the next one arrives after it
			waitFor(() -> thread.getState() == Thread.State.WAITING);
			return answer;
		}

		void release() {
			this.recorder.held.complete(null);
		}

		static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (!condition.getAsBoolean()) {
				assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
				Thread.sleep(1);
			}
		}

	}

}
