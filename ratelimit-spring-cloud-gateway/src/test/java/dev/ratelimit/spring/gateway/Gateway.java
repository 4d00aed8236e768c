package dev.ratelimit.spring.gateway;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.test.TestRedis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real gateway application (Gateway Server WebFlux on Netty, or Gateway Server MVC on Tomcat) with the starter, on
 * a free port and the shared test Redis, and a real HTTP client of it.
 *
 * <p>
 * WebFlux gateways use Reactor Netty's global resources, as applications do (the gateway's client then runs on the
 * server's event loops): closing one gateway stops the loops of every other of the JVM, so a test class closes its
 * gateways only when it is done with all of them.
 */
final class Gateway implements AutoCloseable {

	static {
		// a client choosing the Host it sends (routes chosen by a Host predicate), read as java.net.http starts
		System.setProperty("jdk.httpclient.allowRestrictedHeaders", "host");
	}

	private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final ConfigurableApplicationContext context;

	private final int port;

	private Gateway(ConfigurableApplicationContext context) {
		this.context = context;
		this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	/** A Gateway Server WebFlux application of {@code sources} with {@code properties}. */
	static Gateway webflux(Class<?>[] sources, String... properties) {
		return start(WebApplicationType.REACTIVE, sources, properties);
	}

	/** A Gateway Server MVC application of {@code sources} with {@code properties}. */
	static Gateway mvc(Class<?>[] sources, String... properties) {
		return start(WebApplicationType.SERVLET, sources, properties);
	}

	static ConfigurableApplicationContext run(WebApplicationType type, Class<?>[] sources, String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.data.redis.url=" + TestRedis.shared().url(),
				"server.port=0", "ratelimit.redis.timeout=10s", "spring.main.banner-mode=off",
				"management.endpoints.web.exposure.include=ratelimits,gateway",
				"management.endpoint.gateway.access=unrestricted"));
		all.addAll(List.of(properties));
		SpringApplication application = new SpringApplicationBuilder(sources).web(type)
			.properties(all.toArray(String[]::new))
			.build();
		return application.run();
	}

	private static Gateway start(WebApplicationType type, Class<?>[] sources, String... properties) {
		return new Gateway(run(type, sources, properties));
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	/** A GET of {@code path}, with header fields as names and values alternately. */
	HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET();
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** A request of {@code method} with a JSON body. */
	HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
		return client.send(HttpRequest.newBuilder(uri(path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.method(method, HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	int port() {
		return this.port;
	}

	@Override
	public void close() {
		this.context.close();
	}

}
