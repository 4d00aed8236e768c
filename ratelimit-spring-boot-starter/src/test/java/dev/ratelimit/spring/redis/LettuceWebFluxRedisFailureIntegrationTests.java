package dev.ratelimit.spring.redis;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.ratelimit.spring.test.NoBlocking;

/** {@link RedisFailureContract} on WebFlux with Lettuce, under BlockHound: failures never block an event loop. */
@ExtendWith(NoBlocking.class)
class LettuceWebFluxRedisFailureIntegrationTests extends RedisFailureContract {

	@Override
	String client() {
		return "lettuce";
	}

	@Override
	String webApplicationType() {
		return "reactive";
	}

}
