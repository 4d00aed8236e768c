package dev.ratelimit.spring.autoconfigure.reactive;

import java.lang.reflect.Method;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.spring.autoconfigure.ConfiguredLimit;
import dev.ratelimit.spring.autoconfigure.RateLimitEnforcer;
import reactor.core.publisher.Mono;

import org.springframework.expression.EvaluationContext;

/**
 * The enforcer's decisions as {@link Mono}s, for the WebFilter and the advisor: the principal is read from the
 * exchange (the reactive security context) when a key may need it, and nothing blocks.
 *
 * <p>
 * A decision that waited for Redis completes on the limiter's client threads (or its timer's); the request then
 * continues on its own connection's event loop ({@link RequestThreads}), so the application's handlers never run
 * on (and never delay) the limiter's few Redis I/O threads.
 */
final class ReactiveDecisions {

	private final RateLimitEnforcer enforcer;

	ReactiveDecisions(RateLimitEnforcer enforcer) {
		this.enforcer = enforcer;
	}

	/**
	 * Decides the request's filter rules and handler limits.
	 * @return empty when the request goes ahead, or a {@link dev.ratelimit.spring.RateLimitException}
	 */
	Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits) {
		return decide(request, limits, (principal) -> this.enforcer.clientKeys()
			.context(request.exchange().getRequest(), principal, request.exchange()));
	}

	/** Decides a call of an annotated method, with its arguments. */
	Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits, Method method,
			Object[] arguments) {
		return decide(request, limits, (principal) -> this.enforcer.clientKeys()
			.context(request.exchange().getRequest(), principal, request.exchange(), method, arguments));
	}

	private Mono<Void> decide(ExchangeLimitedRequest request, List<ConfiguredLimit> limits,
			java.util.function.Function<Principal, EvaluationContext> context) {
		return principal(request, limits).flatMap((principal) -> {
			CompletableFuture<Void> decision = this.enforcer
				.enforce(request, limits, context.apply(principal.orElse(null)))
				.toCompletableFuture();
			Mono<Void> result = Mono.fromFuture(decision, true);
			return decision.isDone() ? result : result.publishOn(RequestThreads.of(request.exchange()));
		});
	}

	/** The principal, read only when a limit has a key expression (the default key is the client's address). */
	private static Mono<Optional<Principal>> principal(ExchangeLimitedRequest request, List<ConfiguredLimit> limits) {
		if (limits.stream().allMatch((limit) -> limit.key() == null)) {
			return Mono.just(Optional.empty());
		}
		return request.exchange().getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty());
	}

}
