package dev.ratelimit.spring.aop;

import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.spring.enforce.Reservation;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * A limited call of a method whose {@link ReturnType} is reactive, as a Reactor publisher: the method's own
 * publisher from its type's adapter, a decision before it, and the method's type made again by the adapter. One
 * value is a {@code Mono}, many a {@code Flux}, whatever the declared type. Loaded only when Reactor is on the class
 * path.
 */
public final class ReactorCallAdapter {

	private ReactorCallAdapter() {
	}

	/**
	 * {@code call}, made anew for each subscription with the subscriber's context (a publisher subscribed again is
	 * decided again), as the method's declared type.
	 */
	public static Object deferContextual(ReturnType type, Function<ContextView, Publisher<Object>> call) {
		Publisher<Object> deferred = (type.kind() == ReturnType.Kind.MULTI) ? Flux.deferContextual(call)
				: Mono.deferContextual((context) -> Mono.from(call.apply(context)));
		return type.adapter().fromPublisher(deferred);
	}

	/**
	 * For each subscription, {@code decision} with a reservation of its own, then, once it is empty, the method's
	 * publisher; the decision's error otherwise. The leases the decision took are given back ({@code release}) when
	 * the publisher ends: it completes, fails, or its subscriber cancels (the client went away).
	 */
	public static Publisher<Object> after(Function<Reservation, Mono<Void>> decision, Consumer<Reservation> release,
			MethodInvocation invocation, ReturnType type) {
		if (type.kind() == ReturnType.Kind.MULTI) {
			return Flux.defer(() -> {
				Reservation held = new Reservation();
				return decision.apply(held)
					.thenMany(Flux.defer(() -> proceed(invocation, type)))
					.doFinally((signal) -> release.accept(held));
			});
		}
		return Mono.defer(() -> {
			Reservation held = new Reservation();
			return decision.apply(held)
				.then(Mono.defer(() -> Mono.from(proceed(invocation, type))))
				.doFinally((signal) -> release.accept(held));
		});
	}

	/** The method's publisher, from its type's adapter; empty when it returns null, its error when it throws. */
	@SuppressWarnings("unchecked")
	static Publisher<Object> proceed(MethodInvocation invocation, ReturnType type) {
		try {
			Object result = invocation.proceed();
			return (result != null) ? (Publisher<Object>) type.adapter().toPublisher(result) : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

}
