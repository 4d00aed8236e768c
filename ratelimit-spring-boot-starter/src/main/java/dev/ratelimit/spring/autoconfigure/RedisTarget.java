package dev.ratelimit.spring.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * The Redis the limiter talks to: the application's connection details, or {@code ratelimit.redis.*} when the
 * limiter has a Redis of its own.
 *
 * @param details where and how to connect; exactly one of standalone, sentinel and cluster is used, in the order
 * cluster, sentinel, standalone (as Spring Boot does)
 * @param ssl TLS settings, or {@code null} for plain connections
 * @param source what configured it, for messages: {@code "spring.data.redis"} or {@code "ratelimit.redis"}
 */
record RedisTarget(DataRedisConnectionDetails details, @Nullable SslBundle ssl, String source) {

	/** The name of the limiter's connections in {@code CLIENT LIST}. */
	static final String CLIENT_NAME = "ratelimit";

	/**
	 * The application's Redis. Spring Boot's own details report TLS through {@code spring.data.redis.ssl.*}; a
	 * {@code rediss://} URL means TLS too.
	 */
	static RedisTarget ofApplication(DataRedisConnectionDetails details, @Nullable String applicationUrl) {
		SslBundle ssl = details.getSslBundle();
		if (ssl == null && applicationUrl != null && applicationUrl.startsWith("rediss:")) {
			ssl = SslBundle.systemDefault();
		}
		return new RedisTarget(details, ssl, "spring.data.redis");
	}

	/**
	 * The limiter's own Redis, from {@code ratelimit.redis.url}, {@code .sentinel.*} or {@code .cluster.nodes}; or
	 * {@code null} when none of them is set.
	 * @throws InvalidConfigurationPropertyValueException naming the property when a value is invalid
	 */
	static @Nullable RedisTarget ofOwn(RateLimitRedisProperties redis, @Nullable SslBundles bundles) {
		int targets = ownTargets(redis);
		checkOwn(redis, targets);
		if (targets == 0) {
			return null;
		}
		URI url = (redis.getUrl() != null) ? url(redis.getUrl()) : null;
		SslBundle ssl = (redis.getSslBundle() != null) ? bundle(redis.getSslBundle(), bundles)
				: (url != null && "rediss".equals(url.getScheme())) ? SslBundle.systemDefault() : null;
		return new RedisTarget(ownDetails(redis, url), ssl, "ratelimit.redis");
	}

	/** @throws InvalidConfigurationPropertyValueException naming the property set where it does not apply */
	private static void checkOwn(RateLimitRedisProperties redis, int targets) {
		if (targets > 1) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.url", redis.getUrl(),
					"Set one of ratelimit.redis.url, ratelimit.redis.sentinel.* and ratelimit.redis.cluster.nodes, not several.");
		}
		boolean ownCredentials = redis.getUsername() != null || redis.getPassword() != null;
		if (ownCredentials && (targets == 0 || redis.getUrl() != null)) {
			throw new InvalidConfigurationPropertyValueException(
					(redis.getPassword() != null) ? "ratelimit.redis.password" : "ratelimit.redis.username", "******",
					"It applies to ratelimit.redis.sentinel.* and ratelimit.redis.cluster.nodes; with ratelimit.redis.url, "
							+ "give the credentials in the URL (redis://user:password@host:port).");
		}
		if (targets == 0 && redis.getSslBundle() != null) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.ssl-bundle", redis.getSslBundle(),
					"It applies to the limiter's own Redis: set ratelimit.redis.url, .sentinel.* or .cluster.nodes too "
							+ "(the application's Redis takes its TLS from spring.data.redis.ssl.*).");
		}
	}

	/** The connection details of the limiter's own Redis; credentials in {@code url} win over the properties'. */
	private static DataRedisConnectionDetails ownDetails(RateLimitRedisProperties redis, @Nullable URI url) {
		RedisSentinelProperties sentinel = redis.getSentinel();
		String master = sentinel.getMaster();
		List<String> clusterNodes = redis.getCluster().getNodes();
		String[] credentials = (url != null && url.getUserInfo() != null) ? url.getUserInfo().split(":", 2) : null;
		String username = (credentials != null && credentials.length == 2 && !credentials[0].isEmpty())
				? credentials[0] : redis.getUsername();
		String password = (credentials != null) ? credentials[credentials.length - 1] : redis.getPassword();
		return new OwnDetails(username, password,
				(url != null) ? DataRedisConnectionDetails.Standalone.of(url.getHost(),
						(url.getPort() > 0) ? url.getPort() : 6379, database(url)) : null,
				(master != null)
						? sentinel(sentinel, master, nodes("ratelimit.redis.sentinel.nodes", sentinel.getNodes())) : null,
				clusterNodes.isEmpty() ? null : clusterOf(nodes("ratelimit.redis.cluster.nodes", clusterNodes)));
	}

	/** The limiter's own Redis: one of {@code standalone}, {@code sentinel} and {@code cluster} is set. */
	private record OwnDetails(@Nullable String username, @Nullable String password,
			DataRedisConnectionDetails.@Nullable Standalone standalone,
			DataRedisConnectionDetails.@Nullable Sentinel sentinel, DataRedisConnectionDetails.@Nullable Cluster cluster)
			implements DataRedisConnectionDetails {

		@Override
		public @Nullable String getUsername() {
			return this.username;
		}

		@Override
		public @Nullable String getPassword() {
			return this.password;
		}

		@Override
		public @Nullable Standalone getStandalone() {
			return this.standalone;
		}

		@Override
		public @Nullable Sentinel getSentinel() {
			return this.sentinel;
		}

		@Override
		public @Nullable Cluster getCluster() {
			return this.cluster;
		}

	}

	/**
	 * What configures the limiter's Redis, as {@link #source()} names it, without building the target: for messages
	 * about a connection, written after the target was built.
	 */
	static String source(RateLimitRedisProperties redis) {
		return (ownTargets(redis) > 0) ? "ratelimit.redis" : "spring.data.redis";
	}

	/** How many of {@code ratelimit.redis.url}, {@code .sentinel.*} and {@code .cluster.nodes} are set. */
	private static int ownTargets(RateLimitRedisProperties redis) {
		return ((redis.getUrl() != null) ? 1 : 0) + ((redis.getSentinel().getMaster() != null) ? 1 : 0)
				+ (redis.getCluster().getNodes().isEmpty() ? 0 : 1);
	}

	private static SslBundle bundle(String name, @Nullable SslBundles bundles) {
		try {
			if (bundles == null) {
				throw new NoSuchSslBundleException(name, "no SSL bundles are configured");
			}
			return bundles.getBundle(name);
		}
		catch (NoSuchSslBundleException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.ssl-bundle", name,
					"No SSL bundle of that name: define it under spring.ssl.bundle.* (" + ex.getMessage() + ").");
		}
	}

	private static URI url(String value) {
		try {
			URI url = new URI(value);
			if (!("redis".equals(url.getScheme()) || "rediss".equals(url.getScheme())) || url.getHost() == null) {
				throw new URISyntaxException(value, "expected redis://[user:password@]host[:port][/database]");
			}
			return url;
		}
		catch (URISyntaxException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.url", value,
					"Not a Redis URL such as redis://localhost:6379 (rediss:// for TLS): " + ex.getMessage());
		}
	}

	private static int database(URI url) {
		String path = url.getPath();
		if (!StringUtils.hasText(path) || path.equals("/")) {
			return 0;
		}
		try {
			return Integer.parseInt(path.substring(1));
		}
		catch (NumberFormatException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.redis.url", url,
					"The path of a Redis URL is the database index, such as /0");
		}
	}

	private static List<Node> nodes(String property, List<String> nodes) {
		if (nodes.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property, nodes, "At least one host:port is needed.");
		}
		return nodes.stream().map((node) -> {
			int colon = node.lastIndexOf(':');
			try {
				return new Node(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)));
			}
			catch (RuntimeException ex) {
				throw new InvalidConfigurationPropertyValueException(property, node, "Expected host:port.");
			}
		}).toList();
	}

	private static DataRedisConnectionDetails.Sentinel sentinel(RedisSentinelProperties sentinel, String master,
			List<Node> nodes) {
		return new DataRedisConnectionDetails.Sentinel() {

			@Override
			public int getDatabase() {
				return sentinel.getDatabase();
			}

			@Override
			public String getMaster() {
				return master;
			}

			@Override
			public List<Node> getNodes() {
				return nodes;
			}

			@Override
			public @Nullable String getUsername() {
				return sentinel.getUsername();
			}

			@Override
			public @Nullable String getPassword() {
				return sentinel.getPassword();
			}

		};
	}

	private static DataRedisConnectionDetails.Cluster clusterOf(List<Node> nodes) {
		return () -> nodes;
	}

}
