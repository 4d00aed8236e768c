package dev.ratelimit.spring.autoconfigure.redis;

/** {@link RedisFailureContract} with the limiter on Lettuce. */
class LettuceRedisFailureTests extends RedisFailureContract {

	@Override
	String client() {
		return "lettuce";
	}

}
