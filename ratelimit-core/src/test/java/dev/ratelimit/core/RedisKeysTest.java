package dev.ratelimit.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key layout. Expected tags are the first 9 bytes of SHA-256 in base64url, computed outside Java
 * ({@code python3 -c "import hashlib,base64; print(base64.urlsafe_b64encode(hashlib.sha256('abc'.encode()).digest()[:9]))"}).
 */
class RedisKeysTest {

	@Test
	void clientIsTheFirstNineBytesOfItsSha256InBase64urlAsTheHashTag() {
		LimitDefinition limit = LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
		assertThat(new RedisKeys("rl:").key("abc", limit)).isEqualTo("rl:{ungWv48Bz-pB}:api:tb:1s");
		// UTF-8, and base64url's '-' and '_' rather than '+' and '/'
		assertThat(new RedisKeys("rl:").key("ключ-ü", limit)).isEqualTo("rl:{_-zF6R7aPeZ3}:api:tb:1s");
	}

	@Test
	void aClientsTagIsTheOneItsKeysCarry() {
		assertThat(RateLimiter.clientTag("abc")).isEqualTo("ungWv48Bz-pB");
		assertThat(RateLimiter.clientTag("ключ-ü")).isEqualTo("_-zF6R7aPeZ3");
	}

	@ParameterizedTest
	@CsvSource({ "1, 1ms", "250, 250ms", "1000, 1s", "1500, 1500ms", "90000, 90s", "60000, 1m", "5400000, 90m",
			"3600000, 1h", "86400000, 1d", "172800000, 2d", "90000000, 25h" })
	void windowIsWrittenInTheLargestUnitThatDividesIt(long ms, String written) {
		assertThat(RedisKeys.window(ms)).isEqualTo(written);
	}

	@Test
	void algorithmAndWindowKeepLimitsOfOneNameApart() {
		RedisKeys keys = new RedisKeys("rl:");
		String tokenBucket = keys.key("c", LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(60)));
		String fixedWindow = keys.key("c", LimitDefinition.of("api", Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(60)));
		String hourly = keys.key("c", LimitDefinition.of("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofHours(1)));
		assertThat(tokenBucket).endsWith(":api:tb:1m");
		assertThat(fixedWindow).endsWith(":api:fw:1m");
		assertThat(hourly).endsWith(":api:tb:1h");
	}

}
