package dev.ratelimit.spring.redis;

/** {@link RedisFailureContract} with the limiter on Jedis. */
class JedisRedisFailureIntegrationTests extends RedisFailureContract {

	@Override
	String client() {
		return "jedis";
	}

}
