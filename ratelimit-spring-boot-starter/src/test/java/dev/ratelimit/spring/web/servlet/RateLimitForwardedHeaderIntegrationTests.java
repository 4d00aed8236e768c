package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.test.TestRedis;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default key is the client's address as the container reports it: {@code X-Forwarded-For} counts only from a
 * proxy that Tomcat's remote IP support trusts ({@code server.tomcat.remoteip.internal-proxies}). A real server, so
 * that the container's valve runs; the test client connects from 127.0.0.1. {@code /keys/remote-addr} allows one
 * request per minute per address and answers the address it saw.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "server.forward-headers-strategy=native")
class RateLimitForwardedHeaderIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.shared().url());
		// Exact admission must not depend on a short timeout: a loaded machine would turn it into fail-open.
		registry.add("ratelimit.redis.timeout", () -> "10s");
	}

	@Nested
	// Properties-file escaping: the regex is 10\.9\.9\.\d+, which loopback does not match.
	@TestPropertySource(properties = { "server.tomcat.remoteip.internal-proxies=10\\\\.9\\\\.9\\\\.\\\\d+",
			"ratelimit.key-prefix=http-xff-untrusted:" })
	class FromAnUntrustedPeer {

		@LocalServerPort
		private int port;

		@Test
		void spoofedForwardedForIsIgnored() throws Exception {
			HttpResponse<String> first = get(this.port, "203.0.113.7");
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.body()).isEqualTo("127.0.0.1");
			// Another spoofed address does not buy another budget.
			HttpResponse<String> second = get(this.port, "203.0.113.8");
			assertThat(second.statusCode()).isEqualTo(429);
			assertThat(second.headers().firstValue("Retry-After")).hasValue("60");
		}

	}

	@Nested
	@TestPropertySource(properties = { "server.tomcat.remoteip.internal-proxies=127\\\\.0\\\\.0\\\\.1",
			"ratelimit.key-prefix=http-xff-trusted:" })
	class FromATrustedProxy {

		@LocalServerPort
		private int port;

		@Test
		void forwardedForNamesTheClient() throws Exception {
			HttpResponse<String> first = get(this.port, "203.0.113.7");
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.body()).isEqualTo("203.0.113.7");
			HttpResponse<String> other = get(this.port, "203.0.113.8");
			assertThat(other.statusCode()).isEqualTo(200);
			assertThat(other.body()).isEqualTo("203.0.113.8");
			assertThat(get(this.port, "203.0.113.7").statusCode()).isEqualTo(429);
		}

		@Test
		void rightmostUntrustedAddressIsTheClient() throws Exception {
			// The client prepended a spoofed address; the trusted proxy appended the one it saw.
			HttpResponse<String> response = get(this.port, "198.51.100.1, 203.0.113.9");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("203.0.113.9");
		}

	}

	private static HttpResponse<String> get(int port, String forwardedFor) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/keys/remote-addr"))
			.header("X-Forwarded-For", forwardedFor)
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
