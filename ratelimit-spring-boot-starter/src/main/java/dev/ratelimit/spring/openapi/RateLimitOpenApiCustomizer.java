package dev.ratelimit.spring.openapi;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.spring.HeaderStyle;
import dev.ratelimit.spring.aop.RateLimitedMethodRegistry;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.spring.limits.LimitConfigurations;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import org.jspecify.annotations.Nullable;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.server.PathContainer;
import org.springframework.util.ClassUtils;
import org.springframework.web.method.HandlerMethod;

/**
 * Documents the limits in springdoc-openapi's document (docs/OPENAPI.md): on every operation that enforced limits
 * surely cover, the 429 answer and the rate-limit header fields, described with each limit's name and shape.
 *
 * <p>
 * An operation's limits are its handler's {@code @RateLimited} ones, as the limiter resolves them
 * ({@link RateLimitedMethodRegistry}), and those of the filter rules that match every request of the operation
 * ({@link FilterRuleMatcher#matchingAll} on sample paths of its path template): a rule that matches only
 * some of an operation's paths ({@code /api/items/special} of {@code /api/items/{id}}) or methods documents nothing
 * there. Shadow limits, which never refuse and send no fields, are left out.
 *
 * <p>
 * springdoc tells the handler only to operation customizers and the path only to the document's, so the first
 * notes the handler's limits on the operation (an extension, taken off again by the second), and the
 * second documents each operation once with all its limits. Where springdoc merges several handlers into one
 * operation (one path and method, told apart by parameters or headers), only the limits all of them have are
 * noted. The document shows the limits in force when springdoc builds it, which it does once unless
 * {@code springdoc.cache.disabled} is set.
 */
public final class RateLimitOpenApiCustomizer implements GlobalOperationCustomizer, GlobalOpenApiCustomizer {

	/** The operation's note of its handlers' limits, between the two customizations; never in the document. */
	static final String HANDLER_LIMITS = "x-ratelimit-handler-limits";

	private final LimitConfigurations configurations;

	private final ObjectProvider<RateLimitedMethodRegistry> methods;

	private final LimitedResponses responses;

	/**
	 * @param methods the annotated methods' limits, where {@code @RateLimited} is applied
	 * @param style the header style ({@code ratelimit.header-style}), whose fields the answers carry
	 */
	public RateLimitOpenApiCustomizer(LimitConfigurations configurations,
			ObjectProvider<RateLimitedMethodRegistry> methods, HeaderStyle style) {
		this.configurations = configurations;
		this.methods = methods;
		this.responses = new LimitedResponses(style);
	}

	@Override
	public Operation customize(Operation operation, HandlerMethod handlerMethod) {
		List<ConfiguredLimit> limits = handlerLimits(handlerMethod);
		if (noted(operation) instanceof HandlerLimits earlier) {
			limits = earlier.common(limits);
		}
		operation.addExtension(HANDLER_LIMITS, new HandlerLimits(limits));
		return operation;
	}

	@Override
	public void customise(OpenAPI openApi) {
		if (openApi.getPaths() == null) {
			return;
		}
		FilterRuleMatcher rules = this.configurations.current().rules();
		openApi.getPaths().forEach((path, item) -> {
			List<PathContainer> samples = OperationPaths.samples(path);
			item.readOperationsMap().forEach((method, operation) -> {
				List<ConfiguredLimit> limits = new ArrayList<>();
				if (noted(operation) instanceof HandlerLimits noted) {
					limits.addAll(noted.limits());
					operation.getExtensions().remove(HANDLER_LIMITS);
					if (operation.getExtensions().isEmpty()) {
						operation.setExtensions(null);
					}
				}
				limits.addAll(rules.matchingAll(method.name(), samples));
				List<ConfiguredLimit> documented = enforced(limits);
				if (!documented.isEmpty()) {
					this.responses.document(openApi, operation, documented);
				}
			});
		});
	}

	private List<ConfiguredLimit> handlerLimits(HandlerMethod handler) {
		RateLimitedMethodRegistry registry = this.methods.getIfAvailable();
		if (registry == null) {
			return List.of();
		}
		Method method = ClassUtils.getMostSpecificMethod(handler.getMethod(), handler.getBeanType());
		return registry.limitsFor(method, handler.getBeanType());
	}

	private static @Nullable Object noted(Operation operation) {
		return (operation.getExtensions() != null) ? operation.getExtensions().get(HANDLER_LIMITS) : null;
	}

	/**
	 * The limits that refuse requests and send fields, one per name: limits of one name are one budget of one shape
	 * (a rule and an annotation sharing it, a class's and its method's).
	 */
	private static List<ConfiguredLimit> enforced(List<ConfiguredLimit> limits) {
		Map<String, ConfiguredLimit> byName = new LinkedHashMap<>();
		for (ConfiguredLimit limit : limits) {
			if (!limit.shadow()) {
				byName.putIfAbsent(limit.name(), limit);
			}
		}
		return List.copyOf(byName.values());
	}

	/** The limits of the handlers of an operation that springdoc has seen so far. */
	private record HandlerLimits(List<ConfiguredLimit> limits) {

		/** Those of these limits that {@code others} have too, by name. */
		List<ConfiguredLimit> common(List<ConfiguredLimit> others) {
			List<String> names = others.stream().map(ConfiguredLimit::name).toList();
			return this.limits.stream().filter((limit) -> names.contains(limit.name())).toList();
		}

	}

}
