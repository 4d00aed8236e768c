package dev.ratelimit.spring.autoconfigure;

import java.lang.reflect.Method;

import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import dev.ratelimit.spring.RateLimitKeyMissingException;

/**
 * Resolves the client key of a limit for one request: its SpEL expression, with {@code #request},
 * {@code #principal}, bean references ({@code @bean}) and, on annotated methods, the arguments by name; or the
 * client's IP address as the servlet container reports it (behind proxies: {@code server.forward-headers-strategy}).
 * A null or empty result, or one that fails to evaluate, falls back to the IP address or is rejected, as
 * {@link MissingKeyPolicy} says: never a shared "null" bucket.
 */
final class ClientKeys {

	private static final Log logger = LogFactory.getLog(ClientKeys.class);

	private static final String IP_PREFIX = "ip:";

	private static final String KEY_PREFIX = "key:";

	private final BeanFactoryResolver beanResolver;

	private final MissingKeyPolicy missingKeyPolicy;

	private final RateLimitResponses responses;

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	ClientKeys(BeanFactory beanFactory, MissingKeyPolicy missingKeyPolicy, RateLimitResponses responses) {
		this.beanResolver = new BeanFactoryResolver(beanFactory);
		this.missingKeyPolicy = missingKeyPolicy;
		this.responses = responses;
	}

	/** An evaluation context for a filter rule. */
	EvaluationContext context(HttpServletRequest request) {
		return withRequest(new StandardEvaluationContext(), request);
	}

	/** An evaluation context for an annotated method, with its arguments by name. */
	EvaluationContext context(HttpServletRequest request, Method method, Object[] arguments) {
		return withRequest(new MethodBasedEvaluationContext(null, method, arguments, this.parameterNames), request);
	}

	/**
	 * @throws RateLimitKeyMissingException when the key is missing and {@link MissingKeyPolicy#REJECT} applies
	 */
	String resolve(ConfiguredLimit limit, HttpServletRequest request, EvaluationContext context) {
		if (limit.key() == null) {
			return clientIp(request);
		}
		String key = null;
		try {
			Object value = limit.key().getValue(context);
			key = (value != null) ? value.toString() : null;
		}
		catch (RuntimeException ex) {
			// An EvaluationException, or whatever a bean called by the expression threw: the request must not fail
			// because its key could not be computed.
			logger.debug("Key expression '" + limit.key().getExpressionString() + "' of " + limit.source()
					+ " failed; treating the key as missing", ex);
		}
		if (key != null && !key.isEmpty()) {
			return KEY_PREFIX + key;
		}
		if (this.missingKeyPolicy == MissingKeyPolicy.REJECT) {
			throw this.responses.keyMissing(request, limit);
		}
		return clientIp(request);
	}

	/**
	 * Keys from expressions and client IPs live in separate namespaces, so a client cannot send another client's IP
	 * address as its API key and spend the budget of that address.
	 */
	private static String clientIp(HttpServletRequest request) {
		return IP_PREFIX + request.getRemoteAddr();
	}

	private StandardEvaluationContext withRequest(StandardEvaluationContext context, HttpServletRequest request) {
		context.setBeanResolver(this.beanResolver);
		context.setVariable("request", request);
		context.setVariable("principal", request.getUserPrincipal());
		return context;
	}

}
