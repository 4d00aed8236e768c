package dev.ratelimit.spring.aop;

import java.util.concurrent.CompletionStage;

import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.Reservation;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * When a call of a limited method that returns its result (not a publisher) ends, so that the leases of its
 * concurrency limits are given back then: a returned {@code CompletionStage} when it completes (or is cancelled), any
 * other result when the method returns or throws. A publisher's call ends with the publisher
 * ({@link ReactorCallAdapter#after}).
 */
public final class CallEnd {

	private CallEnd() {
	}

	/** Proceeds with the admitted call and gives back what {@code held} holds when the call has ended. */
	public static @Nullable Object proceed(MethodInvocation invocation, RateLimitEnforcer enforcer, Reservation held)
			throws Throwable {
		if (!held.holdsLeases()) {
			return invocation.proceed();
		}
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			enforcer.release(held);
			throw ex;
		}
		if (result instanceof CompletionStage<?> stage) {
			// the caller's own stage is returned; a cancelled CompletableFuture completes it exceptionally too
			stage.whenComplete((value, failure) -> enforcer.release(held));
		}
		else {
			enforcer.release(held);
		}
		return result;
	}

}
