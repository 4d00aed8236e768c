package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.enforce.RateLimitEnforcer;
import dev.ratelimit.spring.enforce.Reservation;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Where a servlet request ends, for the leases it holds: when its dispatch returns, or, for an asynchronous response
 * ({@code DeferredResult}, {@code Callable}, streaming, a proxied body), when that response completes, fails, times
 * out or the client goes away.
 */
public final class RequestEnd {

	private RequestEnd() {
	}

	/**
	 * Gives back what {@code held} holds once {@code request} has ended; call it as the dispatch that took them
	 * returns (in a {@code finally}), before the container sees the request again.
	 */
	public static void release(HttpServletRequest request, RateLimitEnforcer enforcer, Reservation held) {
		if (!held.holdsLeases()) {
			return;
		}
		if (request.isAsyncStarted()) {
			// the request ends when its asynchronous response does (releasing now would give the leases back while it
			// runs); added before this dispatch returns to the container, as the Servlet specification requires
			request.getAsyncContext().addListener(new LeaseRelease(enforcer, held));
		}
		else {
			enforcer.release(held);
		}
	}

	/**
	 * Gives a request's leases back when its asynchronous response completes, fails, times out (the container's
	 * error dispatch or completion follows, and the leases go once) or the client goes away.
	 */
	private record LeaseRelease(RateLimitEnforcer enforcer, Reservation held) implements AsyncListener {

		@Override
		public void onComplete(AsyncEvent event) {
			this.enforcer.release(this.held);
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			this.enforcer.release(this.held);
		}

		@Override
		public void onError(AsyncEvent event) {
			this.enforcer.release(this.held);
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			// a new asynchronous cycle of the same request: this listener must be added to it again to be told
			event.getAsyncContext().addListener(this);
		}

	}

}
