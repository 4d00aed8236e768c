package dev.ratelimit.spring.autoconfigure;

import java.util.List;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The core's {@link ScriptExecutor} on Spring Data Redis, so the limiter uses the application's
 * {@code RedisConnectionFactory}. Spring Data runs scripts with {@code EVALSHA} and falls back to {@code EVAL} on
 * {@code NOSCRIPT}; failures surface as Spring's {@code DataAccessException}.
 */
final class SpringDataRedisScriptExecutor implements ScriptExecutor {

	private final StringRedisTemplate template;

	private final RedisScript<List> rateLimit = RedisScript.of(LuaScript.rateLimit().source(), List.class);

	SpringDataRedisScriptExecutor(StringRedisTemplate template) {
		this.template = template;
	}

	@Override
	@SuppressWarnings("unchecked")
	public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
		RedisScript<List> redisScript = script.equals(LuaScript.rateLimit()) ? this.rateLimit
				: RedisScript.of(script.source(), List.class);
		return this.template.execute(redisScript, keys, args.toArray());
	}

}
