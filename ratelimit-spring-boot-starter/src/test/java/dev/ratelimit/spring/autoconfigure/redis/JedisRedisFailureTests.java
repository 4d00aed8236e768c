package dev.ratelimit.spring.autoconfigure.redis;

/** {@link RedisFailureContract} with the limiter on Jedis. */
class JedisRedisFailureTests extends RedisFailureContract {

	@Override
	String client() {
		return "jedis";
	}

}
