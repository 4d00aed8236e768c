package dev.ratelimit.spring.enforce;

import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import dev.ratelimit.spring.MissingKeyPolicy;
import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.RateLimitKeyMissingException;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Resolves the client key of a limit for one request: its SpEL expression, with {@code #request} (the
 * {@code HttpServletRequest}, or on WebFlux the {@code ServerHttpRequest}), {@code #exchange} (WebFlux's
 * {@code ServerWebExchange}, null on Spring MVC), {@code #principal}, bean references ({@code @bean}) and, on
 * annotated methods, the arguments by name; or the client's IP address as the server reports it (behind proxies:
 * {@code server.forward-headers-strategy}). A null or empty result, or one that fails to evaluate, falls back to the
 * IP address or is rejected, as {@link MissingKeyPolicy} says: never a shared "null" bucket.
 */
public final class ClientKeyResolver {

	private static final Log logger = LogFactory.getLog(ClientKeyResolver.class);

	/** Prefix of a client key that is the client's IP address: {@code ip:203.0.113.7}. */
	public static final String IP_PREFIX = "ip:";

	/** Prefix of a client key that a key expression yielded: {@code key:k-42}. */
	public static final String KEY_PREFIX = "key:";

	/**
	 * The client key of a limit without a key expression, for calls made outside an HTTP request: all of them are
	 * one client. Neither an {@code ip:} nor a {@code key:} key, so no request can spend this budget.
	 */
	public static final String ALL_CALLS = "calls:all";

	private static final Pattern IPV6_LITERAL = Pattern.compile("[0-9A-Fa-f:.]+");

	private final BeanFactoryResolver beanResolver;

	private final MissingKeyPolicy missingKeyPolicy;

	private final RateLimitResponder responses;

	private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

	/** The parameter names of annotated methods, discovered once each. */
	private final Map<Method, String[]> parameterNames = new ConcurrentHashMap<>();

	/** The limits whose key expression has failed once already. */
	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	public ClientKeyResolver(BeanFactory beanFactory, MissingKeyPolicy missingKeyPolicy, RateLimitResponder responses) {
		this.beanResolver = new BeanFactoryResolver(beanFactory);
		this.missingKeyPolicy = missingKeyPolicy;
		this.responses = responses;
	}

	/**
	 * An evaluation context for a filter rule.
	 * @param limited the request, for the key helpers ({@code #header(name)}, ...)
	 * @param request {@code #request}
	 * @param principal {@code #principal}, or null
	 * @param exchange {@code #exchange} on WebFlux, null on Spring MVC
	 */
	public EvaluationContext context(LimitedRequest limited, @Nullable Object request, @Nullable Principal principal,
			@Nullable Object exchange) {
		return withRequest(new KeyEvaluationContext(new KeyHelpers(limited, principal), Set.of()), request, principal,
				exchange);
	}

	/**
	 * An evaluation context for an annotated method, with its arguments by name and as {@code #p0} / {@code #a0}.
	 * Set at once rather than looked up on demand, as {@code MethodBasedEvaluationContext} does, so that a parameter
	 * named like a key helper hides the helper whatever its value.
	 */
	public EvaluationContext context(LimitedRequest limited, @Nullable Object request, @Nullable Principal principal,
			@Nullable Object exchange, Method method, @Nullable Object[] arguments) {
		String[] names = this.parameterNames.computeIfAbsent(method, (unused) -> {
			String[] discovered = this.discoverer.getParameterNames(method);
			return (discovered != null) ? discovered : new String[0];
		});
		KeyEvaluationContext context = new KeyEvaluationContext(new KeyHelpers(limited, principal),
				Set.of(names));
		for (int i = 0; i < arguments.length; i++) {
			context.setVariable("p" + i, arguments[i]);
			context.setVariable("a" + i, arguments[i]);
			if (i < names.length) {
				context.setVariable(names[i], arguments[i]);
			}
		}
		return withRequest(context, request, principal, exchange);
	}

	/**
	 * {@code limits} grouped by their client keys, in order: the limits of one key share a hash tag and are decided
	 * in one call. Each limit is in the shape that the overrides of its client give it, if any
	 * ({@link ConfiguredLimit#forClient}).
	 * @param skipUnresolved whether a limit whose key cannot be resolved is left out rather than failing all
	 * @throws RateLimitException as {@link #resolve} does, unless {@code skipUnresolved}
	 */
	Map<String, List<ConfiguredLimit>> groupByKey(List<ConfiguredLimit> limits, LimitedRequest request,
			EvaluationContext context, boolean skipUnresolved) {
		Map<String, List<ConfiguredLimit>> byKey = new LinkedHashMap<>();
		for (ConfiguredLimit limit : limits) {
			String key;
			try {
				key = resolve(limit, request, context);
			}
			catch (RateLimitException ex) {
				if (skipUnresolved) {
					continue;
				}
				throw ex;
			}
			byKey.computeIfAbsent(key, (unused) -> new ArrayList<>()).add(limit.forClient(key));
		}
		return byKey;
	}

	/**
	 * @throws RateLimitKeyMissingException when the key is missing and {@link MissingKeyPolicy#REJECT} applies
	 */
	String resolve(ConfiguredLimit limit, LimitedRequest request, EvaluationContext context) {
		if (limit.key() == null) {
			// outside a request, a limit without a key has one budget for all its calls (a partner API's, say)
			String address = request.remoteAddress();
			return (address != null) ? clientIp(address) : ALL_CALLS;
		}
		String key = null;
		try {
			Object value = limit.key().getValue(context);
			key = (value != null) ? value.toString() : null;
		}
		catch (RuntimeException ex) {
			// An EvaluationException, or whatever a bean called by the expression threw: the request must not fail
			// because its key could not be computed. A WARN the first time for each limit, since an expression that
			// always fails (a servlet method called on WebFlux's ServerHttpRequest, say) would silently limit by IP.
			String message = "Key expression '" + limit.key().getExpressionString() + "' of " + limit.source()
					+ " failed; treating the key as missing (ratelimit.missing-key)";
			if (this.warned.add(limit.source() + "|" + limit.name())) {
				logger.warn(message + ": " + ex + " (later failures of this expression are logged at DEBUG)");
			}
			else {
				logger.debug(message, ex);
			}
		}
		if (key != null && !key.isEmpty()) {
			return KEY_PREFIX + key;
		}
		// Outside a request there is no IP address to fall back to, and one budget for every missing key would be the
		// shared "null" bucket this class never makes.
		String address = request.remoteAddress();
		if (this.missingKeyPolicy == MissingKeyPolicy.REJECT || address == null) {
			throw this.responses.keyMissing(request, limit);
		}
		return clientIp(address);
	}

	/**
	 * Keys from expressions and client IPs live in separate namespaces, so a client cannot send another client's IP
	 * address as its API key and spend the budget of that address.
	 */
	private static String clientIp(String address) {
		return IP_PREFIX + canonicalIp(address);
	}

	/**
	 * An IP address as the limiter keys it: an IPv6 address in Java's full form ({@code 0:0:0:0:0:0:0:1}, as Tomcat
	 * and Netty report a client they are connected to) however a proxy's forwarded header wrote it ({@code ::1},
	 * {@code [::1]}), so that one client has one key; an IPv4-mapped address as IPv4; anything else as given. Only
	 * literals are parsed, never looked up.
	 */
	public static String canonicalIp(String address) {
		if (address.indexOf(':') < 0) {
			return address;
		}
		String literal = (address.startsWith("[") && address.endsWith("]"))
				? address.substring(1, address.length() - 1) : address;
		if (!IPV6_LITERAL.matcher(literal).matches()) {
			return address;
		}
		try {
			// with a colon, Java parses an IPv6 literal or fails; it never asks DNS
			return InetAddress.getByName(literal).getHostAddress();
		}
		catch (UnknownHostException ex) {
			return address;
		}
	}

	/**
	 * A client key as an operator writes it ({@code ip:::1}, {@code key:k-42}), in the form the limiter resolves it:
	 * the IP address of an {@code ip:} key {@linkplain #canonicalIp canonical}, any other key as given.
	 */
	public static String canonicalKey(String clientKey) {
		return clientKey.startsWith(IP_PREFIX) ? IP_PREFIX + canonicalIp(clientKey.substring(IP_PREFIX.length()))
				: clientKey;
	}

	/**
	 * The client key of a client as an operator names it ({@code alice-key}): the value its key expression yields,
	 * which the limiter keys as {@code key:<value>}; or a client key in the limiter's form ({@code ip:<address>},
	 * {@code key:<value>}, {@link #ALL_CALLS}), {@linkplain #canonicalKey canonical}. A value that itself starts with
	 * {@code ip:} or {@code key:}, or is {@code calls:all}, is written {@code key:<value>}.
	 */
	public static String clientKeyOf(String client) {
		String key = canonicalKey(client);
		return isClientKey(key) ? key : KEY_PREFIX + client;
	}

	/**
	 * Whether {@code clientKey} has the form of a client key: {@code ip:<address>}, {@code key:<value>}, or
	 * {@link #ALL_CALLS}, the one client of a limit without a key expression called outside requests.
	 */
	public static boolean isClientKey(String clientKey) {
		return (clientKey.startsWith(IP_PREFIX) && clientKey.length() > IP_PREFIX.length())
				|| (clientKey.startsWith(KEY_PREFIX) && clientKey.length() > KEY_PREFIX.length())
				|| clientKey.equals(ALL_CALLS);
	}

	private StandardEvaluationContext withRequest(StandardEvaluationContext context, @Nullable Object request,
			@Nullable Principal principal, @Nullable Object exchange) {
		context.setBeanResolver(this.beanResolver);
		// Only what there is: outside a request, a method's argument named request (or principal) is what #request
		// reads, as it was when arguments were looked up on demand.
		if (request != null) {
			context.setVariable("request", request);
		}
		if (principal != null) {
			context.setVariable("principal", principal);
		}
		if (exchange != null) {
			context.setVariable("exchange", exchange);
		}
		return context;
	}

}
