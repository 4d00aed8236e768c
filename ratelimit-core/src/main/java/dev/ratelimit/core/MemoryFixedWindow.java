package dev.ratelimit.core;

import dev.ratelimit.core.MemoryState.Verdict;

/**
 * fixed_window.lua and calendar_window.lua in memory: the window counted, {@code [start, end)} in ms (a window
 * {@code floor(now / W)} of the epoch's, or a calendar period), its count {@code c} and the time {@code t} of its last
 * write. A stored window that starts at or after the request's ends is a lagging clock's, decided at its start; else
 * the count counts on when it was last written in the request's window (the same window; for calendar periods, one of
 * another unit or zone), and is forgotten otherwise.
 */
final class MemoryFixedWindow extends MemoryState {

	private long start;

	private long end;

	private long c;

	private long t;

	@Override
	Verdict decide(long now, long clockNow, LimitRequest request) {
		LimitDefinition definition = request.definition();
		long limit = definition.limit();
		long cost = request.cost();
		Window window = window(now, definition);
		long at = window.at;
		long count = window.count;
		long windowEnd = window.lasts;
		Wait reset = (n) -> wait(n, limit, limit, windowEnd, at);
		if (cost > limit) {
			return Verdict.never(limit - count, reset.forCost(count), more(count, limit, windowEnd, at));
		}
		if (count + cost > limit) {
			return Verdict.denied(limit - count, wait(count, cost, limit, windowEnd, at), reset.forCost(count),
					more(count, limit, windowEnd, at));
		}
		return Verdict.allowed(limit - count, reset.forCost(count), more(count, limit, windowEnd, at), (verdict) -> {
			long n = count + cost;
			write(window, n, now, clockNow);
			long end = window.end;
			verdict.after(limit - n, wait(n, limit, limit, end, at), more(n, limit, end, at));
		});
	}

	/**
	 * The window a request at {@code now} counts in, its count, the time it is decided at, and until when the count
	 * holds unless a request is admitted: the window's end, or the earlier end of a reconfigured calendar limit's
	 * stored period (calendar_window.lua's {@code lasts}).
	 */
	private record Window(long start, long end, long count, long at, long lasts) {
	}

	private Window window(long now, LimitDefinition limit) {
		long start;
		long end;
		CalendarPeriod calendar = limit.calendar();
		if (calendar != null) {
			long[] bounds = calendar.bounds(now);
			start = bounds[1];
			end = bounds[2];
		}
		else {
			start = Math.floorDiv(now, limit.windowMs()) * limit.windowMs();
			end = start + limit.windowMs();
		}
		if (this.stored && this.start >= end) {
			// a lagging clock: decided at the start of the stored window, time never goes backwards
			return new Window(this.start, this.end, this.c, this.start, this.end);
		}
		if (this.stored && this.t >= start && this.end > now) {
			return new Window(start, end, this.c, now, Math.min(end, this.end));
		}
		return new Window(start, end, 0, now, end);
	}

	private void write(Window window, long n, long now, long clockNow) {
		this.start = window.start;
		this.end = window.end;
		this.c = n;
		this.t = window.at;
		expireAfter(Math.max(window.end - now, 0) + TTL_MARGIN_MS, clockNow);
	}

	@Override
	long decisionTime(long now, LimitDefinition limit) {
		return window(now, limit).at;
	}

	@Override
	LimitDecision.Allowance settle(long now, long clockNow, LimitDefinition limit, long delta, long reservedAt) {
		Window window = window(now, limit);
		long count = window.count;
		long n = count;
		if (delta > 0) {
			n = Math.min(count + delta, maxUnits(limit.scaleMs()));
		}
		else if (delta < 0 && window.start <= reservedAt && reservedAt < window.end) {
			n = nonNegative(count + delta);
		}
		long end = window.lasts;
		if (n != count) {
			write(window, n, now, clockNow);
			end = window.end;
		}
		return allowance(limit.limit() - n, wait(n, limit.limit(), limit.limit(), end, window.at),
				more(n, limit.limit(), end, window.at));
	}

	/** The wait until a request of cost {@code c} fits with {@code n} units counted: the next window. */
	private static long wait(long n, long c, long limit, long windowEnd, long at) {
		if (n + c <= limit) {
			return 0;
		}
		return windowEnd - at;
	}

	private static long more(long n, long limit, long windowEnd, long at) {
		return moreAfter(limit - n, limit, (c) -> wait(n, c, limit, windowEnd, at));
	}

	@Override
	public String toString() {
		return "fw[start=" + this.start + ", end=" + this.end + ", c=" + this.c + ", t=" + this.t + ", deadline=" + this.deadline + "]";
	}

}
