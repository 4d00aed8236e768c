package dev.ratelimit.spring.web.reactive;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.ratelimit.spring.RateLimitException;
import dev.ratelimit.spring.enforce.ClientKeyResolver;
import dev.ratelimit.spring.enforce.DecisionObservations;
import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.limits.ChargeCondition;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import dev.ratelimit.spring.enforce.RequestConfiguration;
import dev.ratelimit.spring.limits.FilterRuleMatcher;
import dev.ratelimit.spring.limits.LimitConfigurations;
import dev.ratelimit.spring.web.StatusChargedRules;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.Ordered;
import org.springframework.expression.EvaluationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.cors.reactive.CorsUtils;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * The rules of {@code ratelimit.filter.rules} charged by the response ({@code charge-on-status},
 * {@code settle-cost-header}), on WebFlux, as {@link StatusChargedRules} admits and charges them, once: just before
 * the response is committed (when its cost headers are also taken off it), so that a client that has its answer
 * finds the charge recorded, else once the rest of the chain has completed (an error counts with the status it
 * stands for, else as a 500; a request whose client goes away is not charged, and what it reserved is given back). Ordered before Spring Security, so that Security's own 401 and 403 answers are counted;
 * for the same reason its keys cannot read the principal.
 *
 * <p>
 * The admission and the charge block, so they run on Reactor's bounded elastic threads; the request goes on on its
 * own event loop. The response carries the rate-limit fields of the admission, set before the application answers.
 */
public final class ChargeOnStatusWebFilter implements WebFilter, Ordered {

	private final LimitConfigurations configurations;

	private final StatusChargedRules charges;

	private final ClientKeyResolver clientKeys;

	private final DecisionObservations observations;

	private final ExchangeErrorHandler errors;

	private final int order;

	public ChargeOnStatusWebFilter(LimitConfigurations configurations, RateLimitEnforcer enforcer, ExchangeErrorHandler errors,
			int order) {
		this.configurations = configurations;
		this.charges = new StatusChargedRules(enforcer);
		this.clientKeys = enforcer.clientKeys();
		this.observations = enforcer.observations();
		this.errors = errors;
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		ExchangeLimitedRequest limited = new ExchangeLimitedRequest(exchange);
		FilterRuleMatcher rules = RequestConfiguration.of(limited, this.configurations).rules();
		List<ConfiguredLimit> matched = rules.anyChargedByOutcome() && !CorsUtils.isPreFlightRequest(request)
				? rules.matchingChargedByOutcome(request.getMethod().name(),
						request.getPath().pathWithinApplication())
				: List.of();
		if (matched.isEmpty()) {
			return chain.filter(exchange);
		}
		EvaluationContext context = this.clientKeys.context(limited, request, null, exchange);
		Set<String> costHeaders = StatusChargedRules.costHeaders(matched);
		Map<String, String> taken = new ConcurrentHashMap<>();
		Function<String, @Nullable String> costs = (name) -> costOf(exchange, taken, name);
		AtomicBoolean charged = new AtomicBoolean();
		// the request's observation is in the Reactor context, not on the threads that decide and charge
		return Mono.deferContextual((subscriber) -> {
			this.observations.parentFound(limited, subscriber.getOrDefault(DecisionObservations.REACTOR_CONTEXT_KEY, null));
			return Mono.fromCallable(() -> this.charges.admit(limited, matched, context));
		})
			.subscribeOn(Schedulers.boundedElastic())
			.publishOn(RequestThreads.of(exchange))
			.onErrorResume(RateLimitException.class, (ex) -> this.errors.render(exchange, ex).then(Mono.empty()))
			.doOnNext((admission) -> exchange.getResponse().beforeCommit(() -> {
				takeCostHeaders(exchange, costHeaders, taken);
				return chargeOnce(charged, admission, status(exchange), costs).publishOn(RequestThreads.of(exchange));
			}))
			.flatMap((admission) -> chain.filter(exchange)
				// a response never committed within the chain is charged now
				.then(Mono.defer(() -> chargeOnce(charged, admission, status(exchange), costs)))
				.onErrorResume((ex) -> chargeOnce(charged, admission, status(ex), costs).then(Mono.error(ex)))
				.doOnCancel(() -> Schedulers.boundedElastic().schedule(() -> {
					if (charged.compareAndSet(false, true)) {
						this.charges.release(admission);
					}
				})));
	}

	/**
	 * The charge, once: just before the response is committed, so that a client that has its answer finds it
	 * recorded; or, for a response the chain did not commit, when the chain completes or fails. Off the event loop.
	 */
	private Mono<Void> chargeOnce(AtomicBoolean charged, StatusChargedRules.Admission admission, int status,
			Function<String, @Nullable String> costs) {
		if (!charged.compareAndSet(false, true)) {
			return Mono.empty();
		}
		return Mono.<Void>fromRunnable(() -> this.charges.charge(admission, status, costs))
			.subscribeOn(Schedulers.boundedElastic());
	}

	/** Takes the cost headers the application set off the response about to be committed: never sent. */
	private static void takeCostHeaders(ServerWebExchange exchange, Set<String> names, Map<String, String> taken) {
		HttpHeaders headers = exchange.getResponse().getHeaders();
		for (String name : names) {
			String value = headers.getFirst(name);
			if (value != null) {
				taken.put(name.toLowerCase(Locale.ROOT), value);
			}
			headers.remove(name);
		}
	}

	/** A cost header's value: taken at the commit, or still on a response that was never committed. */
	private static @Nullable String costOf(ServerWebExchange exchange, Map<String, String> taken, String name) {
		String value = taken.get(name.toLowerCase(Locale.ROOT));
		return (value != null || exchange.getResponse().isCommitted()) ? value
				: exchange.getResponse().getHeaders().getFirst(name);
	}

	private static int status(ServerWebExchange exchange) {
		HttpStatusCode status = exchange.getResponse().getStatusCode();
		return (status != null) ? status.value() : 200;
	}

	/** An error that leaves the chain: the status WebFlux answers it with, when it says, else a 500. */
	private static int status(Throwable error) {
		Integer status = ChargeCondition.statusOf(error);
		return (status != null) ? status : 500;
	}

}
