package dev.ratelimit.spring.web.reactive;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Where a request goes on once Redis has decided it: on Reactor Netty, the event loop of the request's own
 * connection, as if the decision had been made there; on other servers, Reactor's parallel scheduler. Never on the
 * limiter's Redis threads, which the application's handlers would otherwise hold up.
 *
 * <p>
 * Reactor Netty 1.3.6 (Spring Boot 4.0.7's) can leave a keep-alive connection unread when a response is completed
 * off its event loop while the client already sends the next request (reactor/reactor-netty#4361): the next request
 * is never answered. Continuing on the connection's event loop avoids it, and costs no thread hop there.
 */
final class RequestThreads {

	private static final boolean REACTOR_NETTY = ClassUtils.isPresent("reactor.netty.Connection",
			RequestThreads.class.getClassLoader());

	private RequestThreads() {
	}

	static Scheduler of(ServerWebExchange exchange) {
		if (REACTOR_NETTY) {
			Executor eventLoop = ReactorNetty.eventLoop(exchange);
			if (eventLoop != null) {
				return Schedulers.fromExecutor(eventLoop);
			}
		}
		return Schedulers.parallel();
	}

	/** Loaded only where Reactor Netty is present. */
	private static final class ReactorNetty {

		static @Nullable Executor eventLoop(ServerWebExchange exchange) {
			Object request;
			try {
				request = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
			}
			catch (IllegalArgumentException ex) {
				// A request of the application's own making, without a native one (a test's mock, say).
				return null;
			}
			return (request instanceof reactor.netty.Connection connection) ? connection.channel().eventLoop() : null;
		}

	}

}
