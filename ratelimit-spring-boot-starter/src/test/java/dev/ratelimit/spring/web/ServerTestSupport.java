package dev.ratelimit.spring.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.ratelimit.test.WindowBoundaries;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * What the contracts written once for Spring MVC and WebFlux share: a real client (java.net.http, HTTP/1.1) of the
 * real server on its random port, on the shared test Redis. A test gives a request its client address with
 * {@code X-Forwarded-For}, which Spring's forwarded-header support ({@code server.forward-headers-strategy=framework}:
 * ForwardedHeaderFilter on MVC, ForwardedHeaderTransformer on WebFlux) makes the request's remote address on both
 * stacks; requests without it come from 127.0.0.1.
 */
@TestPropertySource(properties = { SharedRedis.URL, "server.forward-headers-strategy=framework" })
public abstract class ServerTestSupport {

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		SharedRedis.register(registry);
	}

	/**
	 * For a test that counts on the test application's fixed windows of one minute (on Redis' clock): returns when
	 * the current minute has at least 5 s left, waiting for the next one otherwise ({@link WindowBoundaries}).
	 */
	protected static void awaitRoomInTheMinute() throws InterruptedException {
		WindowBoundaries.awaitRoom(Duration.ofMinutes(1), Duration.ofSeconds(5));
	}

	/**
	 * A GET of {@code path}.
	 * @param headers names and values, alternately
	 */
	protected HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
		// A response that never comes (an error swallowed on an event loop) fails the test instead of hanging it.
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET();
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** A DELETE of {@code path}. */
	protected HttpResponse<String> delete(String path) throws IOException, InterruptedException {
		return this.client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).DELETE().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	/** A GET of {@code path} from the client at {@code address}, with {@code headers} as in {@link #get}. */
	protected HttpResponse<String> from(String address, String path, String... headers)
			throws IOException, InterruptedException {
		String[] all = new String[headers.length + 2];
		all[0] = "X-Forwarded-For";
		all[1] = address;
		System.arraycopy(headers, 0, all, 2, headers.length);
		return get(path, all);
	}

	protected URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

}
