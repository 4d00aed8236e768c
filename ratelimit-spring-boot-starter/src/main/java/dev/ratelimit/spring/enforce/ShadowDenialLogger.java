package dev.ratelimit.spring.enforce;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.core.RateLimitDecision;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs what shadow limits would have refused: at most one INFO line per limit and interval
 * ({@code ratelimit.redis.failure-log-interval}), with the number of denials since the last line, so that a shadow
 * limit under a flood does not flood the log. Never the client key, which may be a secret such as an API key.
 */
public final class ShadowDenialLogger {

	private static final Log logger = LogFactory.getLog(ShadowDenialLogger.class);

	private final long intervalNanos;

	private final Map<String, Window> byLimit = new ConcurrentHashMap<>();

	public ShadowDenialLogger(Duration interval) {
		this.intervalNanos = interval.toNanos();
	}

	private static String retryAfter(LimitDecision denied) {
		OptionalLong ms = denied.retryAfterMs();
		return ms.isPresent() ? "retry after " + ms.getAsLong() + " ms" : "its cost can never fit";
	}

	void record(RateLimitDecision decision) {
		for (LimitDecision denied : decision.shadowDenied()) {
			Window window = this.byLimit.computeIfAbsent(denied.request().name(), (name) -> new Window());
			window.denials.incrementAndGet();
			long now = System.nanoTime();
			long last = window.lastLogged.get();
			if (now - last >= this.intervalNanos && window.lastLogged.compareAndSet(last, now)) {
				long denials = window.denials.getAndSet(0);
				logger.info("Shadow limit '" + denied.request().name() + "' would have denied "
						+ ((denials == 1) ? "a request" : denials + " requests")
						+ " since its last report (" + retryAfter(denied) + "); it is in shadow mode,"
						+ " so " + ((denials == 1) ? "it went" : "they went") + " ahead");
			}
		}
	}

	private static final class Window {

		private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

		private final AtomicLong denials = new AtomicLong();

	}

}
