package dev.ratelimit.spring.test.recipe;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/TESTING.md: the limits off, as a test of something else wants them. */
// snippet:start off
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "ratelimit.enabled=false")
class GreetingWithoutLimitsIntegrationTests {

	@LocalServerPort
	int port;

	@Test
	void noRequestIsLimited() {
		for (int i = 0; i < 5; i++) {
			assertThat(greet("k-1")).isEqualTo(HttpStatus.OK);
		}
	}

	HttpStatusCode greet(String apiKey) {
		return RestClient.create("http://localhost:" + this.port)
			.get()
			.uri("/greeting")
			.header("X-Api-Key", apiKey)
			.exchangeForRequiredValue((request, response) -> response.getStatusCode());
	}

}
// snippet:end off
