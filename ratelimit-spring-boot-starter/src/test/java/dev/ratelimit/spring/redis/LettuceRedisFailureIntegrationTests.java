package dev.ratelimit.spring.redis;

/** {@link RedisFailureContract} with the limiter on Lettuce. */
class LettuceRedisFailureIntegrationTests extends RedisFailureContract {

	@Override
	String client() {
		return "lettuce";
	}

}
