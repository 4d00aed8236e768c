package dev.ratelimit.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import dev.ratelimit.spring.RateLimited;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limiter over TLS, against a real {@code redis-server} that listens on a TLS port only ({@code --port 0}), with
 * a certificate of a throwaway CA made for the test: docs/FAILURES.md promises the application's Redis "with its TLS"
 * ({@code spring.data.redis.ssl.*} and an SSL bundle) and {@code rediss://} for {@code ratelimit.redis.url}.
 *
 * <p>
 * Needs the {@code redis-server} of the {@code PATH}, built with TLS, and {@code openssl}: Docker's {@code redis:7.2}
 * and the embedded Redis 6.2 that {@code TestRedis} may run have no certificates.
 */
@ExtendWith(OutputCaptureExtension.class)
class TlsIntegrationTests {

	/** The JDK's words when no trusted certificate signed the server's: a TLS handshake reached the certificate. */
	private static final String UNTRUSTED = "unable to find valid certification path to requested target";

	@TempDir
	static Path directory;

	private static Process redis;

	private static int tlsPort;

	/** Trusts the throwaway CA alone: what the test's own connections to the server use. */
	private static SSLContext trustingTheCa;

	private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@BeforeAll
	static void startTlsRedis() throws Exception {
		// EC keys: generated in milliseconds. The server's certificate names 127.0.0.1, where the clients connect:
		// Lettuce verifies the host name.
		Files.writeString(directory.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
				"ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=ratelimit TlsIntegrationTests CA");
		openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
				"server.key", "-out", "server.csr", "-subj", "/CN=localhost");
		openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out",
				"server.crt", "-days", "1", "-extfile", "server.ext");
		trustingTheCa = sslContextTrusting(directory.resolve("ca.crt"));
		tlsPort = freePort();
		List<String> command = List.of("redis-server", "--port", "0", "--tls-port", Integer.toString(tlsPort),
				"--bind", "127.0.0.1", "--tls-cert-file", file("server.crt"), "--tls-key-file", file("server.key"),
				"--tls-ca-cert-file", file("ca.crt"), "--tls-auth-clients", "no", "--save", "", "--appendonly", "no",
				"--loglevel", "warning");
		Path log = directory.resolve("redis.log");
		try {
			redis = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("TlsIntegrationTests needs a redis-server built with TLS on the PATH", ex);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(redis::destroyForcibly));
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!answersOverTls()) {
			if (!redis.isAlive() || System.nanoTime() > deadline) {
				redis.destroyForcibly();
				throw new IllegalStateException("redis-server (it must be built with TLS) did not answer over TLS on "
						+ tlsPort + ": " + command + "\n" + Files.readString(log));
			}
			Thread.sleep(20);
		}
	}

	@AfterAll
	static void stopTlsRedis() throws InterruptedException {
		if (redis != null) {
			redis.destroyForcibly().waitFor();
		}
	}

	@Test
	void theServerSpeaksTlsOnly() throws IOException {
		try (Jedis jedis = tls()) {
			assertThat(jedis.configGet("port")).containsEntry("port", "0");
		}
		// A plain client on the TLS port gets no answer: the server resets the connection (its TLS handshake fails).
		assertThat(plainPing()).doesNotStartWith("+PONG");
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void theApplicationsRedisWithAnSslBundleLimitsExactlyOverTls(String client) throws Exception {
		try (ConfigurableApplicationContext application = start(client, "--spring.data.redis.ssl.enabled=true",
				"--spring.data.redis.ssl.bundle=test-ca")) {
			assertLimitsExactly(application, client);
		}
	}

	/** The limiter's own Redis over TLS, trusting a private CA through {@code ratelimit.redis.ssl-bundle}. */
	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void theLimitersOwnRedisWithAnSslBundleLimitsExactlyOverTls(String client) throws Exception {
		try (ConfigurableApplicationContext application = start(client,
				"--ratelimit.redis.url=rediss://127.0.0.1:" + tlsPort, "--ratelimit.redis.ssl-bundle=test-ca")) {
			assertLimitsExactly(application, client);
		}
	}

	private void assertLimitsExactly(ConfigurableApplicationContext application, String client) throws Exception {
		for (int remaining = 2; remaining >= 0; remaining--) {
			HttpResponse<String> response = get(application);
			assertThat(response.statusCode()).as(client + ": status of an admitted request").isEqualTo(200);
			String expected = "\"tls\";r=" + remaining + ";";
			// Only a decision of Redis has the field: a request that failed open has none.
			assertThat(response.headers().firstValue("RateLimit")).as(client + ": RateLimit, Redis' decision")
				.hasValueSatisfying((value) -> assertThat(value).startsWith(expected));
		}
		HttpResponse<String> denied = get(application);
		assertThat(denied.statusCode()).as(client + ": status of the fourth request").isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit")).as(client + ": RateLimit of the denial")
			.hasValueSatisfying((value) -> assertThat(value).startsWith("\"tls\";r=0;"));
		assertThat(failures(application)).as(client + ": ratelimit.redis.failures").isZero();
		// The limiter's connections are on this server, whose only port is the TLS one.
		try (Jedis jedis = tls()) {
			assertThat(jedis.clientList()).contains("name=ratelimit ");
		}
	}

	/** A bundle that does not exist, or one without a Redis of the limiter's own, stops startup naming the property. */
	@Test
	void anUnknownOrMisplacedSslBundleStopsStartup() {
		assertThatThrownBy(() -> start("lettuce", "--ratelimit.redis.url=rediss://127.0.0.1:" + tlsPort,
				"--ratelimit.redis.ssl-bundle=missing").close()).hasStackTraceContaining("ratelimit.redis.ssl-bundle")
			.hasStackTraceContaining("No SSL bundle of that name");
		assertThatThrownBy(() -> start("lettuce", "--ratelimit.redis.ssl-bundle=test-ca").close())
			.hasStackTraceContaining("ratelimit.redis.ssl-bundle")
			.hasStackTraceContaining("applies to the limiter's own Redis");
	}

	/**
	 * Honesty: the same application without TLS does not limit. Its plain commands never reach Redis (the server
	 * resets the connection), every call fails and the requests fail open. (TLS without the bundle fails as
	 * {@code ratelimit.redis.url} does below: the JVM's default trust store does not trust the throwaway CA.)
	 */
	@Test
	void withoutTlsTheLimiterCannotTalkToTheTlsRedis() throws Exception {
		try (ConfigurableApplicationContext application = start("lettuce")) {
			assertFailsOpen(application);
		}
	}

	/**
	 * {@code ratelimit.redis.url=rediss://...} without {@code ratelimit.redis.ssl-bundle} speaks TLS (the handshake
	 * gets as far as the server's certificate) but trusts only the JVM's default trust store, which does not know the
	 * throwaway CA: the limiter cannot decide and fails open.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void withoutAnSslBundleTheLimitersOwnRedisUrlTrustsOnlyTheJvmsTrustStore(String client, CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext application = start(client,
				"--ratelimit.redis.url=rediss://127.0.0.1:" + tlsPort)) {
			assertFailsOpen(application);
		}
		assertThat(output).contains(UNTRUSTED);
	}

	private void assertFailsOpen(ConfigurableApplicationContext application) throws Exception {
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> response = get(application);
			assertThat(response.statusCode()).as("status: the limit of 3 is not kept").isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit")).as("RateLimit: no decision of Redis").isEmpty();
		}
		assertThat(failures(application)).as("ratelimit.redis.failures: every call failed").isGreaterThanOrEqualTo(4);
		try (Jedis jedis = tls()) {
			assertThat(jedis.clientList()).doesNotContain("name=ratelimit ");
		}
	}

	/**
	 * The application's Redis is the TLS server ({@code spring.data.redis.host/port}); the SSL bundle
	 * {@code test-ca} trusts the throwaway CA, used where {@code arguments} name it.
	 */
	private static ConfigurableApplicationContext start(String client, String... arguments) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--spring.main.web-application-type=servlet", "--spring.data.redis.repositories.enabled=false",
				"--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + tlsPort,
				"--spring.ssl.bundle.pem.test-ca.truststore.certificate=file:" + file("ca.crt"),
				"--ratelimit.redis.client=" + client, "--ratelimit.key-prefix=tls-" + UUID.randomUUID() + ":"));
		all.addAll(List.of(arguments));
		return new SpringApplicationBuilder(TlsApplication.class).run(all.toArray(String[]::new));
	}

	private HttpResponse<String> get(ConfigurableApplicationContext application) throws Exception {
		int port = ((WebServerApplicationContext) application).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/tls"))
			.timeout(Duration.ofSeconds(30))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static double failures(ConfigurableApplicationContext application) {
		return application.getBean(MeterRegistry.class).get("ratelimit.redis.failures").counter().count();
	}

	/** A connection of the test's own (not named {@code ratelimit}) over TLS, trusting the throwaway CA. */
	private static Jedis tls() {
		return new Jedis(new HostAndPort("127.0.0.1", tlsPort), DefaultJedisClientConfig.builder()
			.ssl(true)
			.sslSocketFactory(trustingTheCa.getSocketFactory())
			.timeoutMillis(2000)
			.build());
	}

	private static boolean answersOverTls() {
		try (Jedis jedis = tls()) {
			return "PONG".equals(jedis.ping());
		}
		catch (RuntimeException notYet) {
			return false;
		}
	}

	/** {@code PING} in plain RESP on the TLS port: the reply's first line, or what went wrong. */
	private static String plainPing() {
		try (Socket socket = new Socket("127.0.0.1", tlsPort)) {
			socket.setSoTimeout(2000);
			socket.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
			InputStream in = socket.getInputStream();
			StringBuilder line = new StringBuilder();
			for (int ch = in.read(); ch != -1 && ch != '\r'; ch = in.read()) {
				line.append((char) ch);
			}
			return line.toString();
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	private static SSLContext sslContextTrusting(Path certificate) throws Exception {
		KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
		trusted.load(null, null);
		try (InputStream in = Files.newInputStream(certificate)) {
			trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
		}
		TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trust.init(trusted);
		SSLContext context = SSLContext.getInstance("TLS");
		context.init(null, trust.getTrustManagers(), null);
		return context;
	}

	private static void openssl(String... arguments) throws Exception {
		List<String> command = new ArrayList<>(List.of("openssl"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
		String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (process.waitFor() != 0) {
			throw new IllegalStateException(command + " failed:\n" + out);
		}
	}

	private static String file(String name) {
		return directory.resolve(name).toString();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(TlsController.class)
	static class TlsApplication {

	}

	@RestController
	static class TlsController {

		@GetMapping("/tls")
		@RateLimited(name = "tls", limit = 3, window = "1h")
		String tls() {
			return "tls";
		}

	}

}
