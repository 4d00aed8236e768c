package dev.ratelimit.test;

import java.time.Duration;

/**
 * Keeps a test that counts requests on Redis' clock inside one fixed window. Fixed windows (and the sliding window
 * counter's) start at multiples of their length since the epoch, on the Redis server's clock ({@code TIME}), which on
 * this machine is the JVM's. A test whose requests straddle a window's start sees a fresh budget (a fixed window) or
 * one unit more (the sliding window counter's weighted estimate): both are the algorithms' rules, not the test's
 * subject. Such a test calls {@link #awaitRoom} first; it then has {@code room} before the next start.
 *
 * <p>
 * Not a retry and not a wait for the code under test: the wait happens before the test makes its first request, only
 * when the current window has less than {@code room} left, and it ends at the next window's start (for a one-minute
 * window and 5 s of room, one test in twelve waits, 2.5 s on average).
 */
public final class WindowBoundaries {

	private WindowBoundaries() {
	}

	/**
	 * Returns at once when the current window of {@code window} has at least {@code room} left; otherwise sleeps until
	 * the next window has started (and 50 ms more, for a Redis clock read a little later).
	 * @param window the fixed window's length (whole milliseconds, more than {@code room})
	 * @param room the time the test needs inside one window
	 * @throws IllegalArgumentException when {@code room} is not shorter than {@code window}
	 */
	public static void awaitRoom(Duration window, Duration room) throws InterruptedException {
		long windowMs = window.toMillis();
		long roomMs = room.toMillis();
		if (roomMs >= windowMs) {
			throw new IllegalArgumentException("room " + room + " must be shorter than the window " + window);
		}
		long left = windowMs - Math.floorMod(System.currentTimeMillis(), windowMs);
		if (left < roomMs) {
			Thread.sleep(left + 50);
		}
	}

}
