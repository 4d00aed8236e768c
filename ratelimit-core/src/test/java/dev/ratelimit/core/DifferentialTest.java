package dev.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Differential test: random request sequences, each request decided three ways: by the Redis limiter (the Lua
 * scripts, explicit time), by a fresh {@link InMemoryRateLimiter} (explicit time, on a fixed clock) and by
 * {@link ExactModel}, an independent exact implementation of {@code docs/ALGORITHMS.md}. Each backend must agree
 * with the model ({@code allowed}, {@code remaining}, {@code retryAfterMs}, {@code resetAfterMs},
 * {@code moreAfterMs}), and the two backends must agree with each other on all five fields for every request.
 *
 * <p>
 * Where the spec leaves open what a request earlier than a previous request of the same key reports as its
 * waits, only {@code allowed} and {@code remaining} are compared with the model for such a request; Redis and the
 * in-memory limiter, which must make the same decisions, are still compared on all five fields.
 *
 * <p>
 * Explicit time and key expiry: the scripts set relative TTLs computed from the explicit {@code now}, but Redis
 * expires keys by its own wall clock, which in this test runs much faster than the explicit clock (thousands of
 * requests at nearly the same explicit ms), so a key whose TTL is 1 ms would vanish between two requests at the
 * same explicit ms. {@link ExplicitClockExecutor} therefore moves expiry onto the explicit clock: it runs the
 * script's source unchanged, with the same keys and arguments, as a function inside a script that records the TTL
 * of every {@code PEXPIRE} and {@code SET ... PX} the source makes, then reads the {@code PTTL} of each key and
 * {@code PERSIST}s it (within one script call Redis checks expiry against the script's start, so nothing can
 * expire in between). It remembers each key's expiry exactly, as {@code now + TTL} in explicit time, and deletes
 * the key when a later request's {@code now} has passed that instant, as Redis does ({@code now > expiry}). The
 * in-memory limiter expires a state at the same instant by design; after every call the test checks that it does,
 * for every state of every client ({@link InMemoryRateLimiter#expiresAt} against the executor's expiry).
 *
 * <p>
 * Rule 4 is also checked directly: after every call, each key, and each in-memory state, must still exist on the
 * explicit clock for at least the model's {@code resetAfterMs} (until then the limiter is not back to full
 * allowance, so its state matters); a key the script leaves without a TTL fails the test too. When a key then
 * expires on the explicit clock, the model forgets that limit's state as well: by then the limiter is back to full
 * allowance, so nothing changes for requests at later times, but a request that goes back in time finds no stored
 * state in Redis, and the spec lets state expire; the model must not hold such a request to a stored time that no
 * longer exists.
 *
 * <p>
 * Sizes: limits 1..20, sometimes 10^6 or 10^9 (the sliding log: 10^4, because every admitted unit is a sorted-set
 * member and a cost of 10^6 takes Redis seconds); windows 1..5000 ms, sometimes 1..10 ms or one hour; costs mostly
 * 1..limit, exactly the last {@code remaining} (or one more), and sometimes above the limit (never admitted).
 *
 * <p>
 * A disagreement retires that client (its states have diverged). A key found to live too short is recorded and
 * then kept (on the explicit clock) as long as the spec requires, so that the comparison of decisions goes on.
 * The test fails at the end listing every disagreement and the first too-short TTLs, each with the seed, step,
 * request and the client's recent history.
 */
class DifferentialTest {

	private static final long T0 = 1_791_860_000_000L;

	private static final int CLIENTS = 6;

	private static final int SINGLE_STEPS_PER_SEED = 2500;

	private static final int MULTI_STEPS_PER_SEED = 2000;

	private static final int HISTORY = 25;

	/**
	 * Whether clocks occasionally step backwards (rule 7). {@code -Ddifferential.backwards=false} turns
	 * that off, to tell apart disagreements that only follow a step backwards.
	 */
	private static final boolean BACKWARDS = Boolean.parseBoolean(
			System.getProperty("differential.backwards", "true"));

	private static final JedisPooled jedis = SharedJedis.get();

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void singleLimitAgreesWithExactModel(Algorithm algorithm) {
		long[] seeds = { 0x5EED_0000L + algorithm.ordinal() * 2, 0x5EED_0000L + algorithm.ordinal() * 2 + 1 };
		Run run = new Run("single " + algorithm);
		for (long seed : seeds) {
			System.out.println("DifferentialTest single " + algorithm + " seed " + seed);
			SplittableRandom random = new SplittableRandom(seed);
			List<Client> clients = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				clients.add(new Client("client-" + algorithm.code() + "-" + seed + "-" + i,
						List.of(randomLimit(random, algorithm, "l" + i)), T0 + random.nextLong(10_000_000L)));
			}
			run.play(seed, random, clients, SINGLE_STEPS_PER_SEED);
		}
		run.finish();
	}

	@Test
	void severalLimitsAgreeWithExactModelAllOrNothing() {
		long[] seeds = { 0x5EED_1000L, 0x5EED_1001L };
		Run run = new Run("several limits");
		for (long seed : seeds) {
			System.out.println("DifferentialTest several limits seed " + seed);
			SplittableRandom random = new SplittableRandom(seed);
			List<Client> clients = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				List<Algorithm> algorithms = new ArrayList<>(Arrays.asList(Algorithm.values()));
				shuffle(algorithms, random);
				int count = 2 + random.nextInt(2);
				List<LimitDefinition> limits = new ArrayList<>();
				for (int j = 0; j < count; j++) {
					limits.add(randomLimit(random, algorithms.get(j), "m" + j));
				}
				clients.add(new Client("multi-" + seed + "-" + i, limits, T0 + random.nextLong(10_000_000L)));
			}
			run.play(seed, random, clients, MULTI_STEPS_PER_SEED);
		}
		run.finish();
	}

	/**
	 * One test's comparison: the three deciders (Redis, in memory, the model), counters and the disagreements found.
	 */
	private static final class Run {

		private final String label;

		private final ExplicitClockExecutor executor;

		private final RedisKeys keys;

		private final RedisRateLimiter redisLimiter;

		/**
		 * On a fixed clock: its relative TTLs (counted on that clock) never run out, so its state expires only on
		 * the explicit time of the requests, at the instant its Redis key does on the executor's explicit clock.
		 */
		private final InMemoryRateLimiter memoryLimiter = new InMemoryRateLimiter(
				Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));

		private final ExactModel model = new ExactModel();

		private final List<String> disagreements = new ArrayList<>();

		private final List<String> shortTtls = new ArrayList<>();

		private long requests;

		private long decisions;

		private long waitsCompared;

		private long backwardsCompared;

		private long expiriesCompared;

		private long denied;

		private final long started = System.nanoTime();

		Run(String label) {
			this.label = label;
			String prefix = "dt:" + label.replaceAll("[^A-Za-z0-9]", "_") + ":" + System.nanoTime() + ":";
			this.executor = new ExplicitClockExecutor(jedis);
			this.keys = new RedisKeys(prefix);
			this.redisLimiter = new RedisRateLimiter(this.executor, prefix);
		}

		void play(long seed, SplittableRandom random, List<Client> clients, int steps) {
			for (int step = 0; step < steps; step++) {
				List<Client> active = clients.stream().filter((client) -> !client.retired).toList();
				if (active.isEmpty()) {
					return;
				}
				Client client = active.get(random.nextInt(active.size()));
				long windowForSteps = client.limits.get(random.nextInt(client.limits.size())).windowMs();
				client.advance(random, windowForSteps);
				long now = client.now;
				boolean backwards = now < client.maxNow;
				List<LimitDefinition> request = client.request(random);

				List<String> before = new ArrayList<>();
				for (LimitDefinition limit : request) {
					before.add(this.model.describe(client.id, limit));
				}
				RateLimitDecision redis = this.redisLimiter.tryAcquire(client.id, request, now);
				for (LimitDefinition limit : request) {
					if (this.executor.expiredInLastCall.contains(this.keys.key(client.id, limit))) {
						this.model.forget(client.id, limit);
					}
				}
				RateLimitDecision memory = this.memoryLimiter.tryAcquire(client.id, request, now);
				List<ExactModel.Decision> expected = this.model.decide(client.id, request, now);
				this.requests++;

				String requestText = "t=" + now + " (T0" + sign(now - T0) + ")" + (backwards ? " [earlier than "
						+ client.maxNow + "]" : "") + " " + describe(request);
				StringBuilder mismatch = new StringBuilder();
				StringBuilder shortTtl = new StringBuilder();
				boolean allExpected = true;
				for (int i = 0; i < request.size(); i++) {
					LimitDefinition limit = request.get(i);
					Fields fromRedis = Fields.of(redis.decisions().get(i));
					Fields fromMemory = Fields.of(memory.decisions().get(i));
					ExactModel.Decision want = expected.get(i);
					Fields fromModel = Fields.of(want);
					allExpected &= want.allowed();
					this.decisions++;
					if (!backwards) {
						this.waitsCompared++;
					}
					else {
						this.backwardsCompared++;
					}
					// each backend against the model: all five fields, or only allowed and remaining for a request
					// earlier than a previous one (the spec leaves its waits open)
					boolean redisAgrees = backwards ? fromRedis.sameVerdict(fromModel) : fromRedis.equals(fromModel);
					boolean memoryAgrees = backwards ? fromMemory.sameVerdict(fromModel)
							: fromMemory.equals(fromModel);
					// the two backends against each other: all five fields, always
					boolean backendsAgree = fromRedis.equals(fromMemory);
					String key = this.keys.key(client.id, limit);
					// rule 4: the state must live at least until the limiter is back to full allowance
					long lifetime = this.executor.lifetime(key, now);
					if (want.resetAfterMs() > 0 && lifetime < want.resetAfterMs() - 1) {
						shortTtl.append("\n    limit ").append(limit.name()).append(": the key lives ")
							.append(lifetime).append(" ms more (on the explicit clock) but the model needs its state for ")
							.append(want.resetAfterMs()).append(" ms (resetAfterMs); redis=").append(fromRedis)
							.append(" model=").append(fromModel).append("\n      model state after: ")
							.append(this.model.describe(client.id, limit)).append("\n      key ").append(key)
							.append(": ").append(this.executor.expiryHistory(key));
						// recorded; from here on the key lives as long as the spec requires, so the comparison of
						// decisions goes on and can find other disagreements
						this.executor.extend(key, now + want.resetAfterMs() - 1);
					}
					long memoryExpiresAt = this.memoryLimiter.expiresAt(client.id, limit);
					long memoryLifetime = (memoryExpiresAt < 0) ? -1 : memoryExpiresAt - now;
					if (want.resetAfterMs() > 0 && memoryLifetime < want.resetAfterMs() - 1) {
						shortTtl.append("\n    limit ").append(limit.name()).append(": the in-memory state lives ")
							.append(memoryLifetime).append(" ms more (expiresAt ").append(memoryExpiresAt)
							.append(") but the model needs it for ").append(want.resetAfterMs())
							.append(" ms (resetAfterMs); memory=").append(fromMemory).append(" model=")
							.append(fromModel).append("\n      in-memory state after: ")
							.append(this.memoryLimiter.describe(client.id, limit));
					}
					if (!redisAgrees || !memoryAgrees || !backendsAgree) {
						mismatch.append("\n    limit ").append(limit.name()).append(": redis=").append(fromRedis)
							.append(" memory=").append(fromMemory).append(" model=").append(fromModel)
							.append(redisAgrees ? "" : " [redis != model]")
							.append(memoryAgrees ? "" : " [memory != model]")
							.append(backendsAgree ? "" : " [redis != memory]")
							.append("\n      model state before: ").append(before.get(i))
							.append("\n      model state after:  ").append(this.model.describe(client.id, limit))
							.append("\n      in-memory state after: ").append(this.memoryLimiter.describe(client.id, limit))
							.append("\n      key ").append(key).append(": ").append(this.executor.expiryHistory(key));
					}
				}
				if (redis.allowed() != allExpected || memory.allowed() != allExpected) {
					mismatch.append("\n    overall allowed: redis=").append(redis.allowed()).append(" memory=")
						.append(memory.allowed()).append(" model=").append(allExpected);
				}
				if (!allExpected) {
					this.denied++;
				}
				if (shortTtl.length() > 0) {
					List<String> recent = new ArrayList<>(client.history);
					this.shortTtls.add("seed " + seed + " step " + step + " client " + client.id + " request "
							+ requestText + shortTtl + "\n    previous requests of this client (oldest first):\n      "
							+ String.join("\n      ", recent.subList(Math.max(0, recent.size() - 6), recent.size())));
				}
				if (mismatch.length() > 0) {
					client.retired = true;
					this.disagreements.add("seed " + seed + " step " + step + " client " + client.id + " request "
							+ requestText + mismatch + "\n    previous requests of this client (oldest first):\n      "
							+ String.join("\n      ", client.history));
				}
				client.remember("step " + step + ": " + requestText + " -> redis " + text(redis)
						+ (Fields.all(redis).equals(Fields.all(memory)) ? "" : " memory " + text(memory)));
				client.lastRemaining = redis.remaining();
				client.maxNow = Math.max(client.maxNow, now);
				compareExpiries(seed, step, clients);
			}
		}

		/**
		 * After every call, every state of every client still compared: the in-memory limiter must expire it at
		 * exactly the explicit instant at which the executor deletes its Redis key (now + the TTL of the script's
		 * last PEXPIRE), and hold no state where Redis holds no key. A mismatch retires its client.
		 */
		private void compareExpiries(long seed, int step, List<Client> clients) {
			for (Client client : clients) {
				if (client.retired) {
					continue;
				}
				StringBuilder mismatch = new StringBuilder();
				for (LimitDefinition limit : client.limits) {
					String key = this.keys.key(client.id, limit);
					long redisExpiry = this.executor.expiry(key);
					long memoryExpiry = this.memoryLimiter.expiresAt(client.id, limit);
					this.expiriesCompared++;
					if (redisExpiry != memoryExpiry) {
						mismatch.append("\n    limit ").append(limit.name()).append(": Redis key expires at ")
							.append(redisExpiry).append(", in-memory state at ").append(memoryExpiry)
							.append(" (-1: none)\n      key ").append(key).append(": ")
							.append(this.executor.expiryHistory(key)).append("\n      in-memory state: ")
							.append(this.memoryLimiter.describe(client.id, limit)).append("\n      model state: ")
							.append(this.model.describe(client.id, limit));
					}
				}
				if (mismatch.length() > 0) {
					client.retired = true;
					this.disagreements.add("seed " + seed + " after step " + step + ": expiry of client " + client.id
							+ mismatch + "\n    previous requests of this client (oldest first):\n      "
							+ String.join("\n      ", client.history));
				}
			}
		}

		void finish() {
			long ms = (System.nanoTime() - this.started) / 1_000_000;
			System.out.println("DifferentialTest " + this.label + ": " + this.requests + " requests decided by Redis,"
					+ " in memory and by the model, " + this.decisions + " limit decisions compared ("
					+ this.waitsCompared + " with every field against the model, " + this.backwardsCompared
					+ " earlier than a previous request: allowed/remaining against the model, every field Redis against"
					+ " memory), " + this.expiriesCompared + " expiries compared, " + this.denied + " requests denied, "
					+ this.disagreements.size() + " disagreements, " + this.shortTtls.size()
					+ " calls leaving a state with too short a TTL, " + this.executor.expiredKeys
					+ " keys expired on the explicit clock, " + ms + " ms");
			StringBuilder failures = new StringBuilder();
			if (!this.disagreements.isEmpty()) {
				failures.append("\n").append(this.disagreements.size())
					.append(" disagreements between Redis, the in-memory limiter and the exact model"
							+ " (each retires its client):\n  ")
					.append(String.join("\n  ", this.disagreements));
			}
			if (!this.shortTtls.isEmpty()) {
				failures.append("\n").append(this.shortTtls.size())
					.append(" calls after which a state would expire before it is no longer needed (rule 4)")
					.append(this.shortTtls.size() > 10 ? ", the first 10" : "").append(":\n  ")
					.append(String.join("\n  ", this.shortTtls.subList(0, Math.min(10, this.shortTtls.size()))));
			}
			if (!this.executor.keysWithoutTtl.isEmpty()) {
				failures.append("\nkeys the script left without a TTL (rule 4):\n  ")
					.append(String.join("\n  ", this.executor.keysWithoutTtl));
			}
			if (!this.executor.inconsistentTtls.isEmpty()) {
				failures.append("\nkeys whose PTTL does not match the TTL the script set:\n  ")
					.append(String.join("\n  ", this.executor.inconsistentTtls));
			}
			assertThat(failures.length()).as(() -> this.label + ":" + failures).isZero();
		}

	}

	/** The five fields of one limit's decision, from either backend or the model. */
	private record Fields(boolean allowed, long remaining, long retryAfterMs, long resetAfterMs, long moreAfterMs) {

		static Fields of(LimitDecision decision) {
			return new Fields(decision.allowed(), decision.remaining(), decision.retryAfterMs(),
					decision.resetAfterMs(), decision.moreAfterMs());
		}

		static Fields of(ExactModel.Decision decision) {
			return new Fields(decision.allowed(), decision.remaining(), decision.retryAfterMs(),
					decision.resetAfterMs(), decision.moreAfterMs());
		}

		static List<Fields> all(RateLimitDecision decision) {
			return decision.decisions().stream().map(Fields::of).toList();
		}

		boolean sameVerdict(Fields other) {
			return this.allowed == other.allowed && this.remaining == other.remaining;
		}

		@Override
		public String toString() {
			return "[allowed=" + this.allowed + ", remaining=" + this.remaining + ", retryAfterMs="
					+ this.retryAfterMs + ", resetAfterMs=" + this.resetAfterMs + ", moreAfterMs=" + this.moreAfterMs
					+ "]";
		}

	}

	/**
	 * Runs the script as {@link JedisScriptExecutor} does ({@code EVALSHA}, {@code EVAL} on {@code NOSCRIPT}), with
	 * the same keys and arguments, but with key expiry moved from Redis' wall clock onto the explicit clock of the
	 * request (see the class description and {@link #wrap}). Reads the explicit time from the first script
	 * argument, where {@link RedisRateLimiter} puts it.
	 */
	private static final class ExplicitClockExecutor implements ScriptExecutor {

		private final JedisPooled jedis;

		/** Explicit time after which each key is gone (Redis: expired when now > expiry instant). */
		private final Map<String, Long> expiresAt = new HashMap<>();

		/** For each key: which call set its current expiry, and its last deletion on the explicit clock. */
		private final Map<String, String> expirySetBy = new HashMap<>();

		private final Map<String, String> deletions = new HashMap<>();

		private final Set<String> withoutTtl = new HashSet<>();

		final List<String> keysWithoutTtl = new ArrayList<>();

		/** Keys whose PTTL after the call contradicts the TTL recorded in it. */
		final List<String> inconsistentTtls = new ArrayList<>();

		/** The keys deleted on the explicit clock by the last call, before its script ran. */
		final Set<String> expiredInLastCall = new HashSet<>();

		long expiredKeys;

		private final Map<LuaScript, LuaScript> wrappers = new HashMap<>();

		ExplicitClockExecutor(JedisPooled jedis) {
			this.jedis = jedis;
		}

		@Override
		public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
			long now = Long.parseLong(args.get(0));
			List<String> expired = new ArrayList<>();
			for (String key : keys) {
				Long at = this.expiresAt.get(key);
				if (at != null && now > at) {
					expired.add(key);
				}
			}
			if (!expired.isEmpty()) {
				this.jedis.del(expired.toArray(new String[0]));
			}
			this.expiredInLastCall.clear();
			this.expiredInLastCall.addAll(expired);
			for (String key : expired) {
				this.deletions.put(key, "deleted on the explicit clock before the call at now=" + now + " (expiry "
						+ this.expiresAt.remove(key) + " set by " + this.expirySetBy.remove(key) + ")");
				this.expiredKeys++;
			}

			LuaScript wrapped = this.wrappers.computeIfAbsent(script, (original) -> LuaScript.of(wrap(original.source())));
			Object reply;
			try {
				reply = this.jedis.evalsha(wrapped.sha1(), keys, args);
			}
			catch (JedisNoScriptException notLoaded) {
				reply = this.jedis.eval(wrapped.source(), keys, args);
			}
			List<?> parts = (List<?>) reply;
			List<?> pexpires = (List<?>) parts.get(1);
			List<?> pttls = (List<?>) parts.get(2);
			for (int i = 0; i < keys.size(); i++) {
				String key = keys.get(i);
				long ttl = (Long) pexpires.get(i);
				long pttl = (Long) pttls.get(i);
				if (pttl == -2) {
					// no key after the call (a sliding log trimmed to nothing is deleted by Redis), whatever was set
					this.expiresAt.remove(key);
					this.expirySetBy.put(key, "gone after the call at now=" + now);
					this.withoutTtl.remove(key);
				}
				else if (ttl >= 0) {
					// the exact expiry: the TTL the TTL the script set set, counted from the request's explicit now
					this.expiresAt.put(key, now + ttl);
					this.expirySetBy.put(key, "the call at now=" + now + ", PEXPIRE " + ttl + " (PTTL " + pttl + ")");
					this.withoutTtl.remove(key);
					if (pttl < 0 || pttl > ttl) {
						this.inconsistentTtls.add(key + " after a call at now=" + now + ": PEXPIRE " + ttl + " but PTTL "
								+ pttl);
					}
				}
				else if (pttl >= 0) {
					// every earlier call PERSISTed its keys: a TTL not set by a PEXPIRE of this call is unexplained
					this.inconsistentTtls.add(key + " after a call at now=" + now + ": PTTL " + pttl
							+ " without a PEXPIRE in the call");
				}
				else if (!this.expiresAt.containsKey(key)) {
					this.withoutTtl.add(key);
					this.keysWithoutTtl.add(key + " after a call at now=" + now + " with args " + args);
				}
			}
			@SuppressWarnings("unchecked")
			List<Long> result = (List<Long>) parts.get(0);
			return result;
		}

		/**
		 * The script's source, unchanged, run as a function, followed in the same script call by {@code PTTL} and
		 * {@code PERSIST} of every key. Before it, a local {@code redis} shadows the global for the source (Lua
		 * scopes names lexically, so every {@code redis.call} in the source is this one): it passes every call on
		 * and records the TTL of each {@code PEXPIRE} and {@code SET} (its {@code PX}; a {@code SET} without one
		 * records -1, as it leaves the key without a TTL), so the test knows exactly the relative TTL the
		 * script set (locals are allowed in a Redis script, new globals are not; Redis' Lua 5.1 has
		 * {@code setmetatable}). The reply is the script's reply, then per key the TTL of its last {@code PEXPIRE}
		 * or {@code SET} in this call (-1: none) and its {@code PTTL}, read to tell a key left without a TTL (-1) or deleted (-2).
		 * Inside a script Redis checks expiry against the time the script started, so no key can expire between
		 * the script's {@code PEXPIRE} and the {@code PTTL}.
		 */
		private static String wrap(String source) {
			String shebang = "";
			if (source.startsWith("#!")) {
				int end = source.indexOf('\n') + 1;
				shebang = source.substring(0, end);
				source = source.substring(end);
			}
			return shebang + "local differential_redis = redis\n"
					+ "local differential_pexpire = {}\n"
					+ "local redis = setmetatable({ call = function(...)\n"
					+ "  local command, key, ttl = ...\n"
					+ "  local name = type(command) == 'string' and string.upper(command)\n"
					+ "  if name == 'PEXPIRE' then\n"
					+ "    differential_pexpire[key] = tonumber(ttl)\n"
					+ "  elseif name == 'SET' then\n"
					+ "    local args = { ... }\n"
					+ "    differential_pexpire[key] = -1\n"
					+ "    for i = 4, #args - 1 do\n"
					+ "      if string.upper(args[i]) == 'PX' then differential_pexpire[key] = tonumber(args[i + 1]) end\n"
					+ "    end\n"
					+ "  end\n"
					+ "  return differential_redis.call(...)\n"
					+ "end }, { __index = differential_redis })\n"
					+ "local differential_reply = (function()\n" + source + "\nend)()\n"
					+ "local differential_set, differential_ttls = {}, {}\n"
					+ "for i, key in ipairs(KEYS) do\n"
					+ "  differential_set[i] = differential_pexpire[key] or -1\n"
					+ "  differential_ttls[i] = differential_redis.call('PTTL', key)\n"
					+ "end\n"
					+ "for _, key in ipairs(KEYS) do differential_redis.call('PERSIST', key) end\n"
					+ "return { differential_reply, differential_set, differential_ttls }\n";
		}

		/** Keeps the key (on the explicit clock) at least until {@code at}. */
		void extend(String key, long at) {
			if (this.expiresAt.containsKey(key) && this.expiresAt.get(key) < at) {
				this.expiresAt.put(key, at);
				this.expirySetBy.put(key, "the test, extending a too short TTL");
			}
		}

		/** How many ms after {@code now} the key still exists on the explicit clock; -1 if it does not exist. */
		long lifetime(String key, long now) {
			if (this.withoutTtl.contains(key)) {
				return Long.MAX_VALUE;
			}
			Long at = this.expiresAt.get(key);
			return (at != null) ? at - now : -1;
		}

		/** The explicit instant after which the key is gone (now + the TTL of its last PEXPIRE), or -1 if none. */
		long expiry(String key) {
			Long at = this.expiresAt.get(key);
			return (at != null) ? at : -1;
		}

		/** What is known about the key's expiry, for failure messages. */
		String expiryHistory(String key) {
			String text = "expiry " + this.expiresAt.get(key) + " set by " + this.expirySetBy.get(key);
			String deleted = this.deletions.get(key);
			return (deleted != null) ? text + "; last " + deleted : text;
		}

	}

	/** One client: its limits, its own clock and recent history. */
	private static final class Client {

		final String id;

		final List<LimitDefinition> limits;

		long now;

		long maxNow = Long.MIN_VALUE;

		long lastRemaining = 1;

		boolean retired;

		final Deque<String> history = new ArrayDeque<>();

		Client(String id, List<LimitDefinition> limits, long start) {
			this.id = id;
			this.limits = limits;
			this.now = start;
		}

		void remember(String line) {
			this.history.addLast(line);
			if (this.history.size() > HISTORY) {
				this.history.removeFirst();
			}
		}

		/** Moves this client's clock: duplicates, small steps, boundaries, jumps and occasionally backwards. */
		void advance(SplittableRandom random, long window) {
			if (this.maxNow == Long.MIN_VALUE) {
				return;
			}
			double r = random.nextDouble();
			long step;
			if (r < 0.20) {
				step = 0;
			}
			else if (r < 0.60) {
				step = 1 + random.nextLong(Math.max(1, window / 4));
			}
			else if (r < 0.75) {
				step = 1 + random.nextLong(2 * window);
			}
			else if (r < 0.85) {
				// right at, just before or just after a window boundary
				long next = (Math.floorDiv(this.now, window) + 1) * window;
				step = next - this.now + random.nextInt(3) - 1;
			}
			else if (r < 0.93) {
				step = 1 + random.nextLong(Math.max(1, window / 50));
			}
			else if (r < 0.97) {
				step = window * (2 + random.nextInt(5)) + random.nextLong(window);
			}
			else {
				long back = 1 + random.nextLong(Math.max(1, Math.min(window, 10_000)));
				step = BACKWARDS ? -back : 0;
			}
			this.now = Math.max(0, this.now + step);
		}

		/** The limits with a random cost for this request. */
		List<LimitDefinition> request(SplittableRandom random) {
			long shared = -1;
			List<LimitDefinition> request = new ArrayList<>(this.limits.size());
			for (LimitDefinition limit : this.limits) {
				long cost;
				if (shared < 0 || random.nextInt(8) == 0) {
					cost = randomCost(random, limit, this.lastRemaining);
					shared = cost;
				}
				else {
					cost = shared;
				}
				request.add(withCostOrFits(limit, cost));
			}
			return request;
		}

	}

	private static LimitDefinition randomLimit(SplittableRandom random, Algorithm algorithm, String name) {
		long window;
		double w = random.nextDouble();
		if (w < 0.10) {
			window = 3_600_000;
		}
		else if (w < 0.25) {
			window = 1 + random.nextInt(10);
		}
		else {
			window = 1 + random.nextInt(5000);
		}
		long limit;
		double l = random.nextDouble();
		if (l < 0.85) {
			limit = 1 + random.nextInt(20);
		}
		else if (algorithm == Algorithm.SLIDING_LOG) {
			// every admitted unit is its own sorted-set member: a cost of 10^6 would block Redis for seconds
			limit = 10_000;
		}
		else if (l < 0.95) {
			limit = 1_000_000;
		}
		else {
			limit = (window <= 1_000_000) ? 1_000_000_000 : 1_000_000;
		}
		long capacity = limit;
		if (algorithm == Algorithm.TOKEN_BUCKET) {
			double c = random.nextDouble();
			if (c < 0.35) {
				capacity = 1 + random.nextInt(20);
			}
			else if (c < 0.45) {
				capacity = 1_000_000;
			}
		}
		return new LimitDefinition(name, algorithm, limit, Duration.ofMillis(window), capacity, 1);
	}

	private static long randomCost(SplittableRandom random, LimitDefinition limit, long lastRemaining) {
		long bound = (limit.algorithm() == Algorithm.TOKEN_BUCKET) ? limit.capacity() : limit.limit();
		double r = random.nextDouble();
		if (r < 0.35) {
			return 1;
		}
		if (r < 0.50) {
			// exactly what was left, or one more
			long cost = Math.max(1, lastRemaining + random.nextInt(2));
			return Math.min(cost, bound + 1);
		}
		if (r < 0.65) {
			return 1 + random.nextLong(Math.min(bound, 3));
		}
		if (r < 0.92) {
			return 1 + random.nextLong(bound);
		}
		return bound + 1 + random.nextLong(bound);
	}

	/** {@code limit} with {@code cost}, or with cost bound + 1 if that cost would leave the exact range. */
	private static LimitDefinition withCostOrFits(LimitDefinition limit, long cost) {
		try {
			return limit.withCost(cost);
		}
		catch (IllegalArgumentException outOfRange) {
			long bound = (limit.algorithm() == Algorithm.TOKEN_BUCKET) ? limit.capacity() : limit.limit();
			return limit.withCost(Math.min(cost, bound + 1));
		}
	}

	private static <T> void shuffle(List<T> list, SplittableRandom random) {
		for (int i = list.size() - 1; i > 0; i--) {
			Collections.swap(list, i, random.nextInt(i + 1));
		}
	}

	private static String describe(List<LimitDefinition> request) {
		List<String> parts = new ArrayList<>();
		for (LimitDefinition limit : request) {
			parts.add(limit.name() + "=" + limit.algorithm() + "(L=" + limit.limit() + ", W=" + limit.windowMs()
					+ "ms" + ((limit.algorithm() == Algorithm.TOKEN_BUCKET) ? ", C=" + limit.capacity() : "")
					+ ", cost=" + limit.cost() + ")");
		}
		return String.join(" + ", parts);
	}

	private static String text(LimitDecision decision) {
		return "[allowed=" + decision.allowed() + ", remaining=" + decision.remaining() + ", retryAfterMs="
				+ decision.retryAfterMs() + ", resetAfterMs=" + decision.resetAfterMs() + ", moreAfterMs="
				+ decision.moreAfterMs() + "]";
	}

	private static String text(RateLimitDecision decision) {
		List<String> parts = new ArrayList<>();
		for (LimitDecision one : decision.decisions()) {
			parts.add(one.limit().name() + text(one));
		}
		return String.join(" ", parts);
	}

	private static String sign(long offset) {
		return (offset >= 0) ? "+" + offset : Long.toString(offset);
	}

}
