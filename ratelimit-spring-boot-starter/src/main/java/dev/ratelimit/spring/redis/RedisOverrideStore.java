package dev.ratelimit.spring.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import dev.ratelimit.spring.limits.LimitOverride;
import dev.ratelimit.spring.limits.LimitOverrides;
import dev.ratelimit.spring.limits.OverrideStore;
import dev.ratelimit.spring.limits.OverrideTarget;
import org.jspecify.annotations.Nullable;

/**
 * The overrides in Redis, through the limiter's own client: one hash, {@code <prefix>{overrides}}, with a field per
 * override ({@link LimitOverrides#field}) and {@code #version}, which every write increments. It is the one key of the
 * limiter without a TTL: it holds what operators set, not what clients spent. Under a {@code volatile-*}
 * {@code maxmemory-policy} it is never evicted; under {@code allkeys-*} it can be, and every instance then goes back
 * to its {@code application.yml} (logged) until an override is set again.
 *
 * <p>
 * The scripts reply with integers only, as every script of the limiter does ({@link ScriptExecutor}): the read sends
 * the overrides' text as its bytes, one per integer, and only when the version changed.
 */
public final class RedisOverrideStore implements OverrideStore {

	/** Replies {version} when it is ARGV[1], else {version, the bytes of "field\nvalue\n..."}. */
	private static final LuaScript READ = LuaScript.of("""
			local version = tonumber(redis.call('HGET', KEYS[1], '#version') or '0')
			if version == tonumber(ARGV[1]) then
			  return {version}
			end
			local all = redis.call('HGETALL', KEYS[1])
			local text = {}
			for i = 1, #all, 2 do
			  if all[i] ~= '#version' then
			    text[#text + 1] = all[i] .. '\\n' .. all[i + 1] .. '\\n'
			  end
			end
			local bytes = table.concat(text)
			local reply = {version}
			for i = 1, #bytes do
			  reply[i + 1] = string.byte(bytes, i)
			end
			return reply
			""");

	/**
	 * Unless the version is no longer ARGV[4] ({-1} then, nothing written): sets field ARGV[1] to ARGV[2] (removes
	 * it when empty) and increments the version, which starts from ARGV[3] in a hash without one (new, or evicted),
	 * so that a version is never given twice.
	 */
	private static final LuaScript WRITE = LuaScript.of("""
			if tonumber(redis.call('HGET', KEYS[1], '#version') or '0') ~= tonumber(ARGV[4]) then
			  return {-1}
			end
			if ARGV[2] == '' then
			  redis.call('HDEL', KEYS[1], ARGV[1])
			else
			  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
			end
			redis.call('HSETNX', KEYS[1], '#version', ARGV[3])
			return {redis.call('HINCRBY', KEYS[1], '#version', 1)}
			""");

	private static final SecureRandom RANDOM = new SecureRandom();

	private final ScriptExecutor executor;

	private final String key;

	private final Duration timeout;

	/**
	 * @param keyPrefix {@code ratelimit.key-prefix}
	 * @param timeout how long a read or a write waits for Redis
	 */
	public RedisOverrideStore(ScriptExecutor executor, String keyPrefix, Duration timeout) {
		this.executor = executor;
		this.key = keyPrefix + "{overrides}";
		this.timeout = timeout;
	}

	/** The key of the overrides' hash. */
	public String key() {
		return this.key;
	}

	@Override
	public @Nullable Stored read(long knownVersion) {
		List<Long> reply = call(READ, List.of(Long.toString(knownVersion)));
		long version = reply.get(0);
		if (reply.size() == 1 && version == knownVersion) {
			return null;
		}
		byte[] bytes = new byte[reply.size() - 1];
		for (int i = 1; i < reply.size(); i++) {
			bytes[i - 1] = reply.get(i).byteValue();
		}
		String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
		Map<String, String> fields = new LinkedHashMap<>();
		for (int i = 0; i + 1 < lines.length; i += 2) {
			fields.put(lines[i], lines[i + 1]);
		}
		return new Stored(version, LimitOverrides.of(fields));
	}

	@Override
	public @Nullable Stored write(OverrideTarget target, @Nullable LimitOverride override, long expectedVersion) {
		long base = RANDOM.nextLong(1L << 40);
		List<Long> written = call(WRITE, List.of(LimitOverrides.field(target),
				(override != null) ? override.encode() : "", Long.toString(base), Long.toString(expectedVersion)));
		if (written.get(0) < 0) {
			return null;
		}
		Stored stored = read(-1);
		if (stored == null) {
			throw new IllegalStateException("Redis answered no overrides");
		}
		return stored;
	}

	private List<Long> call(LuaScript script, List<String> args) {
		try {
			return this.executor.executeAsync(script, List.of(this.key), args)
				.toCompletableFuture()
				.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("Redis did not answer within " + this.timeout.toMillis() + " ms", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

}
