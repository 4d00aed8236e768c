package dev.ratelimit.spring.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CorePublisher;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * What a limited method returns, told from its declared return type: the one place that tells a result decided
 * with a delayed stage, with a Reactor publisher or on the calling thread apart, so that the limiters, the advisor
 * and the startup checks all follow it. Reactive types are Spring's ({@link ReactiveAdapterRegistry}, as Spring's
 * own retry interceptor reads them): Reactor's {@code Mono}, {@code Flux} and {@code Publisher}, and RxJava's,
 * Kotlin's or the JDK's where the registry knows them; the limiting code works on the adapter's publisher and hands
 * back what the adapter makes of it.
 */
public final class ReturnType {

	/** How a call is decided: what its result lets the limiter wait on without holding a thread. */
	public enum Kind {

		/**
		 * {@code CompletionStage}, {@code CompletableFuture} or {@code Future}: decided with a delayed stage, then
		 * called on the common pool, never on the Redis client's I/O thread. Kept off the registry's
		 * {@code CompletionStage} adapter on purpose: the adapter exists only with Reactor, and would run the method
		 * on Reactor's threads; a stage decided alike with and without Reactor needs neither.
		 */
		STAGE,

		/** A reactive type of at most one value ({@code Mono}, RxJava's {@code Single}): decided as a Mono. */
		SINGLE,

		/** A reactive type of many values ({@code Flux}, {@code Publisher}, {@code Flowable}): decided as a Flux. */
		MULTI,

		/** Anything else: decided before the call, on the calling thread. */
		VALUE

	}

	/**
	 * Whether Reactor is on the class path: without it no publisher can be decided without blocking (the registry
	 * may still know RxJava's types), so no type is reactive; a servlet application may lack it.
	 */
	private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReturnType.class.getClassLoader());

	/** Whether Reactive Streams is on the class path, with or without Reactor. */
	private static final boolean REACTIVE_STREAMS = ClassUtils.isPresent("org.reactivestreams.Publisher",
			ReturnType.class.getClassLoader());

	/** Once per class: the advisor asks on every call, and an event loop may ask. */
	private static final ClassValue<ReturnType> TYPES = new ClassValue<>() {

		@Override
		protected ReturnType computeValue(Class<?> type) {
			return classify(type);
		}

	};

	private final Class<?> type;

	private final Kind kind;

	/** Null unless reactive. */
	private final @Nullable ReactiveAdapter adapter;

	private final boolean readsSubscriberContext;

	private final boolean resultLater;

	private ReturnType(Class<?> type, Kind kind, @Nullable ReactiveAdapter adapter, boolean readsSubscriberContext,
			boolean resultLater) {
		this.type = type;
		this.kind = kind;
		this.adapter = adapter;
		this.readsSubscriberContext = readsSubscriberContext;
		this.resultLater = resultLater;
	}

	/** What a method declaring {@code returnType} returns. */
	public static ReturnType of(Class<?> returnType) {
		return TYPES.get(returnType);
	}

	private static ReturnType classify(Class<?> type) {
		if (type != Object.class && type.isAssignableFrom(CompletableFuture.class)) {
			return new ReturnType(type, Kind.STAGE, null, false, true);
		}
		boolean future = Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type);
		ReturnType reactive = (REACTOR && !future) ? Reactor.classify(type) : null;
		if (reactive != null) {
			return reactive;
		}
		// a future, stage or publisher of a class the starter cannot make: a value, though its result comes later
		boolean later = future || (REACTIVE_STREAMS && Publisher.class.isAssignableFrom(type));
		return new ReturnType(type, Kind.VALUE, null, false, later);
	}

	public Kind kind() {
		return this.kind;
	}

	/** Whether calls are decided as a Reactor publisher ({@link Kind#SINGLE} or {@link Kind#MULTI}). */
	public boolean reactive() {
		return this.kind == Kind.SINGLE || this.kind == Kind.MULTI;
	}

	/**
	 * The registry's adapter of a reactive type: its publisher is what the limiter decides, and
	 * {@link ReactiveAdapter#fromPublisher} makes the method's type of it again.
	 * @throws IllegalStateException when the type is not {@link #reactive()}
	 */
	public ReactiveAdapter adapter() {
		if (this.adapter == null) {
			throw new IllegalStateException(name() + " is not a reactive type");
		}
		return this.adapter;
	}

	/**
	 * Whether a subscriber's Reactor context reaches the publisher the limiter makes: Reactor's own types, not
	 * those the adapter wraps in another library's (an RxJava subscriber carries no context). On WebFlux, what ties
	 * a call to its request.
	 */
	public boolean readsSubscriberContext() {
		return this.readsSubscriberContext;
	}

	/**
	 * Whether the method's outcome can be charged (chargeOn, chargeWhen): the value it returns, or the one value of
	 * a reactive type; not many values, nor a result that comes later in a stage, a future or another publisher.
	 */
	public boolean outcomeOnReturn() {
		return this.kind == Kind.SINGLE || (this.kind == Kind.VALUE && !this.resultLater);
	}

	/** The declared type's simple name, for messages. */
	public String name() {
		return this.type.getSimpleName();
	}

	@Override
	public String toString() {
		return this.kind + " " + name();
	}

	/** Kept apart so that this class loads without Reactor. */
	private static final class Reactor {

		/**
		 * The type's adapter, when it makes the declared type: a subclass of a reactive type (a {@code ParallelFlux}
		 * is a {@code Publisher}) would get its superclass's adapter, whose publisher the method could not return.
		 * @return null when the type is not reactive
		 */
		static @Nullable ReturnType classify(Class<?> type) {
			ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
			if (adapter == null || !type.isAssignableFrom(adapter.getReactiveType())) {
				return null;
			}
			Class<?> made = adapter.getReactiveType();
			// the registry adapts a plain Publisher as itself: the limiter's Flux then
			boolean context = CorePublisher.class.isAssignableFrom(made) || made == Publisher.class;
			return new ReturnType(type, adapter.isMultiValue() ? Kind.MULTI : Kind.SINGLE, adapter, context, false);
		}

	}

}
