package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;

import dev.ratelimit.spring.enforce.BackgroundCall;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationContext;
import org.springframework.util.ClassUtils;

/**
 * Limited calls made outside an HTTP request: a scheduled job, a message listener, any thread of the application,
 * in any application (web or not). The key reads the method's arguments and beans ({@code #request} and
 * {@code #principal} are null); a limit without a key is one budget for all such calls. A denied call waits for a
 * permit up to its max wait ({@link PermitWaiter}), as its {@link ReturnType} says: a reactive type ({@code Mono},
 * {@code Flux}, ...) with a delay, a {@code CompletionStage} or {@code CompletableFuture} with a delayed stage,
 * anything else by sleeping on the calling thread.
 */
public final class BackgroundCallLimiter implements CallLimiter {

	private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono",
			BackgroundCallLimiter.class.getClassLoader());

	private static final boolean NETTY = ClassUtils.isPresent("io.netty.util.concurrent.FastThreadLocalThread",
			BackgroundCallLimiter.class.getClassLoader());

	private final ObjectProvider<PermitWaiter> waits;

	public BackgroundCallLimiter(ObjectProvider<PermitWaiter> waits) {
		this.waits = waits;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation, Method method, MethodLimits methodLimits)
			throws Throwable {
		List<ConfiguredLimit> limits = methodLimits.inForce();
		PermitWaiter waits = this.waits.getObject();
		EvaluationContext context = waits.enforcer()
			.clientKeys()
			.context(new BackgroundCall(), null, null, null, method, invocation.getArguments());
		ReturnType type = ReturnType.of(method.getReturnType());
		if (type.reactive()) {
			return Reactive.invoke(invocation, method, waits, limits, context);
		}
		Duration maxWait = waits.maxWait(limits, false);
		if (type.kind() == ReturnType.Kind.STAGE) {
			// async: the decision completes on the Redis client's I/O thread, which must never run (or wait in) the
			// method; the common pool runs it, as CompletableFuture's own async methods do
			Reservation held = new Reservation();
			CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
			waits.enforceAsync(new BackgroundCall(), limits, context, maxWait, held, result)
				.whenComplete((admitted, failure) -> {
					if (failure != null || result.isDone()) {
						// denied, failed, or its caller cancelled it meanwhile: the method does not run
						waits.enforcer().release(held);
						if (failure != null) {
							result.completeExceptionally(unwrapped(failure));
						}
						return;
					}
					ForkJoinPool.commonPool()
						.execute(() -> proceedToStage(invocation).whenComplete((value, ex) -> {
							waits.enforcer().release(held);
							if (ex != null) {
								result.completeExceptionally(unwrapped(ex));
							}
							else {
								result.complete(value);
							}
						}));
				});
			return result;
		}
		if ((REACTOR && Schedulers.isInNonBlockingThread()) || (NETTY && Netty.inEventLoop())) {
			throw new IllegalStateException("@RateLimited " + method.getDeclaringClass().getSimpleName() + "."
					+ method.getName() + " was called outside an HTTP request on a non-blocking thread ("
					+ Thread.currentThread().getName() + "), where it cannot wait for Redis; return a Mono, Flux or"
					+ " CompletionStage, or call it from another thread");
		}
		if (ChargeByOutcome.any(limits)) {
			return ChargeByOutcome.invoke(waits,
					new LimitedCall(invocation, method, new BackgroundCall(), limits, context), maxWait);
		}
		Reservation held = new Reservation();
		waits.enforce(new BackgroundCall(), limits, context, maxWait, held);
		return CallEnd.proceed(invocation, waits.enforcer(), held);
	}

	/** What failed a stage: the cause a {@link CompletionException} wraps, else {@code failure} itself. */
	private static Throwable unwrapped(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	@SuppressWarnings("unchecked")
	private static CompletionStage<@Nullable Object> proceedToStage(MethodInvocation invocation) {
		try {
			Object result = invocation.proceed();
			return (result != null) ? (CompletionStage<@Nullable Object>) result : CompletableFuture.completedFuture(null);
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** Kept apart so that this class loads without Netty. */
	private static final class Netty {

		/**
		 * Whether this is a Netty thread: an event loop of Reactor Netty or of Lettuce (which Reactor does not mark
		 * non-blocking), where waiting for Redis could hold up the very thread that reads Redis' answer.
		 */
		static boolean inEventLoop() {
			return Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread;
		}

	}

	/** Kept apart so that this class loads without Reactor. */
	private static final class Reactive {

		/** The limited publisher, as the method's reactive type; it decides when subscribed, waiting with a delay. */
		static Object invoke(MethodInvocation invocation, Method method, PermitWaiter waits,
				List<ConfiguredLimit> limits, EvaluationContext context) {
			ReturnType type = ReturnType.of(method.getReturnType());
			Duration maxWait = waits.maxWait(limits, false);
			ReactorPermitWaiter reactive = new ReactorPermitWaiter(waits, Schedulers::parallel);
			if (ChargeByOutcome.any(limits)) {
				// one value only: RateLimitedMethodRegistry stops startup for others charged by outcome
				LimitedCall call = new LimitedCall(invocation, method, new BackgroundCall(), limits, context);
				return type.adapter()
					.fromPublisher(Mono.defer(() -> reactive.invokeChargedByOutcome(call, maxWait)));
			}
			// a call of its own for each subscription: a publisher subscribed again is decided again
			return type.adapter()
				.fromPublisher(ReactorCallAdapter.after(
						(held) -> reactive.enforce(new BackgroundCall(), limits, context, maxWait, held),
						waits.enforcer()::release, invocation, type));
		}

	}

}
