package dev.ratelimit.spring.gateway.webflux;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.gateway.LimitedRoute;
import dev.ratelimit.spring.gateway.RouteKeyRequest;
import dev.ratelimit.spring.gateway.RouteKeys;
import dev.ratelimit.spring.gateway.RouteLimit;
import dev.ratelimit.spring.gateway.RouteLimits;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.web.reactive.ReactiveEnforcer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.expression.EvaluationContext;

/**
 * A {@code RateLimiter} for the gateway's own {@code RequestRateLimiter} filter, in place of its
 * {@code RedisRateLimiter}: the same route, key resolver and arguments ({@code redis-rate-limiter.replenishRate},
 * {@code burstCapacity}, {@code requestedTokens}, as {@code long}s), decided by the starter's token bucket exactly to
 * the millisecond; or any of the starter's rate limits under {@code ratelimit.*} ({@code ratelimit.algorithm},
 * {@code limit}, {@code window}, ...). A denial carries {@code Retry-After} and the {@code RateLimit} fields (or the
 * style of {@code ratelimit.headers}), and, with {@code gateway-headers: true}, the gateway's
 * {@code X-RateLimit-Remaining}, {@code -Burst-Capacity}, {@code -Replenish-Rate} and {@code -Requested-Tokens}.
 *
 * <pre>
 * filters:
 *   - name: RequestRateLimiter
 *     args:
 *       rate-limiter: "#{&#64;rateLimitGatewayRateLimiter}"
 *       key-resolver: "#{&#64;userKeyResolver}"
 *       redis-rate-limiter.replenishRate: 1        # unchanged from RedisRateLimiter's
 *       redis-rate-limiter.burstCapacity: 5
 * </pre>
 *
 * Inside {@code RequestRateLimiter} the gateway, not the starter, answers: the status (429, or
 * {@code status-code}), no body, and a missing key (403 with {@code deny-empty-key}, the gateway's default). A
 * route's limit is named after its id, as the route filter's. The bean is no default autowire candidate: the gateway's
 * {@code RequestRateLimiter} keeps its own limiter unless a route names this one.
 */
public class RateLimitGatewayRateLimiter extends AbstractRateLimiter<RateLimitGatewayRateLimiter.Config> {

	/** The prefix of this limiter's arguments in a route's {@code RequestRateLimiter} filter. */
	public static final String CONFIGURATION_PROPERTY_NAME = "ratelimit";

	/** The prefix of {@code RedisRateLimiter}'s arguments, taken as they are. */
	private static final String REDIS_RATE_LIMITER = "redis-rate-limiter.";

	/** The prefix of this limiter's own arguments. */
	private static final String OWN = CONFIGURATION_PROPERTY_NAME + ".";

	private static final Log logger = LogFactory.getLog(RateLimitGatewayRateLimiter.class);

	private static final Config DEFAULTS = new Config();

	private static final RouteKeyRequest NO_REQUEST = new RouteKeyRequest((name) -> null, (name) -> null,
			(name) -> null, "", "", null, null);

	private final RouteLimits limits;

	private final PermitWaiter waits;

	/** Each route's limit, as its arguments give it: computed once per route, not per request. */
	private final Map<String, LimitedRoute> routes = new ConcurrentHashMap<>();

	public RateLimitGatewayRateLimiter(RouteLimits limits, PermitWaiter waits,
			@Nullable ConfigurationService configurationService) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.limits = limits;
		this.waits = waits;
	}

	/**
	 * Reads a route's arguments, {@code RedisRateLimiter}'s as this limiter's own, and checks the route's limit as the
	 * route is built.
	 * @throws IllegalArgumentException naming the route, the argument and the value when an argument under
	 * {@code ratelimit.} or {@code redis-rate-limiter.} is unknown or invalid
	 */
	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		if (!event.getArgs().containsValue(this)) {
			// another filter's arguments, or a RequestRateLimiter with another limiter (RedisRateLimiter's own)
			return;
		}
		Map<String, @Nullable Object> args = new LinkedHashMap<>();
		event.getArgs().forEach((name, value) -> {
			if (name.startsWith(OWN) || name.startsWith(REDIS_RATE_LIMITER)) {
				args.put(name, value);
			}
		});
		String routeId = event.getRouteId();
		Config config = new Config(args);
		LimitedRoute route = this.limits.route(routeId, config.limit(routeId), RouteKeys.RESOLVED);
		this.limits.check(route);
		getConfig().put(routeId, config);
		this.routes.put(routeId, route);
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		Config config = getConfig().getOrDefault(routeId, DEFAULTS);
		GatewayLimitedRequest request = new GatewayLimitedRequest();
		List<ConfiguredLimit> limits;
		try {
			// a route whose arguments never reached this limiter (the Java DSL's) takes ratelimit.defaults
			LimitedRoute route = this.routes.computeIfAbsent(routeId,
					(unknown) -> this.limits.route(unknown, DEFAULTS.limit(unknown), RouteKeys.RESOLVED));
			limits = this.limits.resolve(RequestConfiguration.of(request, this.limits.configurations()), route);
		}
		catch (IllegalArgumentException ex) {
			logger.error("Refusing the requests of a route whose rate limit is invalid: " + ex.getMessage());
			return Mono.just(new Response(false, Map.of()));
		}
		EvaluationContext key = RouteKeys.context(NO_REQUEST, null, id);
		Mono<Response> decided = Mono.defer(() -> {
			// a request that goes away (its subscription cancelled) ends its wait for a permit
			CompletableFuture<Void> caller = new CompletableFuture<>();
			return Mono
				.fromCompletionStage(this.waits.enforceAsync(request, limits, key, this.waits.maxWait(limits, true),
						new Reservation(), caller))
				.doOnCancel(() -> caller.cancel(false));
		})
			.then(Mono.fromSupplier(() -> new Response(true, DecisionFields.of(request.headers(), config.isGatewayHeaders(), limits))))
			.onErrorResume(RateLimitException.class,
					(ex) -> Mono.just(new Response(false, DecisionFields.of(ex.getHeaders(), config.isGatewayHeaders(), limits))));
		// the request goes on on its own connection's event loop, not the limiter's Redis threads: proxied from
		// another loop, Reactor Netty 1.3 can leave the client's next request on that connection unanswered
		return ReactiveEnforcer.currentExchange()
			.map(ReactiveEnforcer::requestThread)
			.defaultIfEmpty(Schedulers.immediate())
			.flatMap(decided::publishOn);
	}

	/**
	 * A route's arguments: {@code RedisRateLimiter}'s ({@code replenishRate} tokens per second, up to
	 * {@code burstCapacity}, {@code requestedTokens} per request: a token bucket) or the starter's (those of
	 * {@link RouteLimit} but {@code key}, which the gateway's {@code KeyResolver} resolves).
	 */
	public static class Config extends RouteLimit {

		/** Its arguments in a route: the starter's under {@code ratelimit.}, {@code RedisRateLimiter}'s as they are. */
		private static final List<String> ARGUMENTS = List.of("ratelimit.name", "ratelimit.algorithm",
				"ratelimit.limit", "ratelimit.window", "ratelimit.period", "ratelimit.zone",
				"ratelimit.first-day-of-week", "ratelimit.capacity", "ratelimit.cost", "ratelimit.mode",
				"ratelimit.failure-policy", "ratelimit.usage", "ratelimit.gateway-headers",
				"redis-rate-limiter.replenishRate", "redis-rate-limiter.burstCapacity",
				"redis-rate-limiter.requestedTokens");

		private @Nullable Long replenishRate;

		private @Nullable Long burstCapacity;

		private @Nullable Long requestedTokens;

		private boolean gatewayHeaders;

		/** A route's limit with every value unset: {@code ratelimit.defaults}. */
		public Config() {
		}

		Config(Map<String, @Nullable Object> arguments) {
			super(arguments);
		}

		@Override
		protected String filterName() {
			return "RequestRateLimiter";
		}

		@Override
		protected List<String> argumentNames() {
			return ARGUMENTS;
		}

		/** {@code ratelimit.limit} sets {@code limit}, {@code redis-rate-limiter.replenishRate} sets {@code replenishRate}. */
		@Override
		protected String argumentProperty(String argument) {
			return argument.substring(argument.indexOf('.') + 1);
		}

		/** Tokens added per second: the token bucket's limit per {@code 1s}, unless {@code window} says otherwise. */
		public @Nullable Long getReplenishRate() {
			return this.replenishRate;
		}

		public Config setReplenishRate(@Nullable Long replenishRate) {
			this.replenishRate = replenishRate;
			return this;
		}

		/** The token bucket's capacity. */
		public @Nullable Long getBurstCapacity() {
			return this.burstCapacity;
		}

		public Config setBurstCapacity(@Nullable Long burstCapacity) {
			this.burstCapacity = burstCapacity;
			return this;
		}

		/** Tokens per request: the cost. */
		public @Nullable Long getRequestedTokens() {
			return this.requestedTokens;
		}

		public Config setRequestedTokens(@Nullable Long requestedTokens) {
			this.requestedTokens = requestedTokens;
			return this;
		}

		/** Whether answers carry {@code RedisRateLimiter}'s {@code X-RateLimit-*} fields too. */
		public boolean isGatewayHeaders() {
			return this.gatewayHeaders;
		}

		public Config setGatewayHeaders(boolean gatewayHeaders) {
			this.gatewayHeaders = gatewayHeaders;
			return this;
		}

		/**
		 * The route's limit: {@code RedisRateLimiter}'s arguments as a token bucket of {@code replenishRate} per
		 * second and {@code burstCapacity}, or the starter's arguments.
		 * @throws IllegalArgumentException naming the route when both name one value, or the algorithm is
		 * {@code concurrency} (a {@code RateLimiter} is never told when the request ends)
		 */
		RouteLimit limit(String routeId) {
			readArguments(routeId);
			RouteLimit limit = new RouteLimit() {

				@Override
				protected String filterName() {
					return "RequestRateLimiter";
				}

				@Override
				protected boolean takesLeases() {
					return false;
				}

			}.setName(getName())
				.setAlgorithm(getAlgorithm())
				.setLimit(either(routeId, "limit", getLimit(), "replenishRate", this.replenishRate))
				.setWindow(getWindow())
				.setPeriod(getPeriod())
				.setZone(getZone())
				.setFirstDayOfWeek(getFirstDayOfWeek())
				.setCapacity(either(routeId, "capacity", getCapacity(), "burstCapacity", this.burstCapacity))
				.setCost(either(routeId, "cost", getCost(), "requestedTokens", this.requestedTokens))
				.setMode(getMode())
				.setFailurePolicy(getFailurePolicy())
				.setUsage(getUsage());
			if (this.replenishRate != null || this.burstCapacity != null) {
				if (getAlgorithm() != null && getAlgorithm() != Algorithm.TOKEN_BUCKET) {
					throw new IllegalArgumentException("The rate limit of route '" + routeId + "' has replenishRate or"
							+ " burstCapacity, which are a token bucket's, and algorithm " + getAlgorithm());
				}
				limit.setAlgorithm(Algorithm.TOKEN_BUCKET);
				if (getWindow() == null && getPeriod() == null) {
					limit.setWindow(Duration.ofSeconds(1));
				}
			}
			if (limit.getAlgorithm() == Algorithm.CONCURRENCY) {
				throw new IllegalArgumentException("The rate limit of route '" + routeId + "' is a concurrency limit,"
						+ " which RequestRateLimiter cannot give back when the request ends: use the RateLimited"
						+ " route filter for it");
			}
			return limit;
		}

		private static @Nullable Long either(String routeId, String own, @Nullable Long ownValue, String gateways,
				@Nullable Long gatewaysValue) {
			if (ownValue != null && gatewaysValue != null) {
				throw new IllegalArgumentException("The rate limit of route '" + routeId + "' has both " + own
						+ " and " + gateways + "; give one");
			}
			return (ownValue != null) ? ownValue : gatewaysValue;
		}

	}

}
