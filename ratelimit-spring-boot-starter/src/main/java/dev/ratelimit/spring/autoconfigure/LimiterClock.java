package dev.ratelimit.spring.autoconfigure;

import java.time.InstantSource;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * The application's {@code rateLimitClock}, an {@link InstantSource} bean of that name (a {@link java.time.Clock} is
 * one), found once at startup by the {@code @Bean} methods that take it: the time of the limiter the starter makes
 * (in memory, or on Redis in place of the server's {@code TIME}), of the fail-local state, and of what the starter
 * ages on the limiter's decisions (remembered denials, the waiting lines' denials). Without one, nothing changes:
 * the system's clock and {@link System#nanoTime()}, nothing looked up per decision.
 */
final class LimiterClock {

	private LimiterClock() {
	}

	/**
	 * The limiter's time in ns, for what ages on its decisions: {@link System#nanoTime()}, or the clock's ms in ns
	 * (the limiter reads it in ms).
	 */
	static LongSupplier nanoTime(@Nullable InstantSource clock) {
		if (clock == null) {
			return System::nanoTime;
		}
		return () -> clock.millis() * 1_000_000;
	}

}
