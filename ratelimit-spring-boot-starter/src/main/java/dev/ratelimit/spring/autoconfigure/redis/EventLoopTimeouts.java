package dev.ratelimit.spring.autoconfigure.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.ratelimit.spring.autoconfigure.Timeouts;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;

/**
 * Deadlines judged on the Lettuce I/O thread that reads Redis's replies (the limiter's client has exactly one), so
 * that a deadline measures Redis and not the application's scheduling.
 *
 * <p>
 * Why: with a timer thread of its own, a deadline raced the I/O thread. In a burst (100 request threads on 2 cores)
 * the I/O thread, busy with one reply after another and preempted by every request thread it wakes, lost that race
 * although Redis had answered in under a millisecond: the replies sat in the socket while the timer failed their
 * requests open (the limit of 50 admitted up to 179). A Netty event loop reads what its sockets hold before it runs
 * its due tasks, in every iteration; a deadline that is one of those tasks therefore passes only when Redis's reply
 * had not arrived by the time the loop got to run: Redis was slow or unreachable, not the application busy. Until
 * the first connection exists (Redis down at startup), no reply can arrive, and the deadlines run on Lettuce's
 * computation threads.
 */
final class EventLoopTimeouts implements Timeouts, NettyCustomizer {

	private final Supplier<EventExecutorGroup> beforeFirstConnection;

	private volatile EventLoop eventLoop;

	/** @param beforeFirstConnection where deadlines run until a connection exists (Lettuce's computation pool) */
	EventLoopTimeouts(Supplier<EventExecutorGroup> beforeFirstConnection) {
		this.beforeFirstConnection = beforeFirstConnection;
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		this.eventLoop = channel.eventLoop();
	}

	@Override
	public Runnable schedule(Runnable onTimeout, long delayNanos) {
		EventLoop loop = this.eventLoop;
		Future<?> timeout = (loop != null && !loop.isShuttingDown())
				? loop.schedule(onTimeout, delayNanos, TimeUnit.NANOSECONDS)
				: this.beforeFirstConnection.get().schedule(onTimeout, delayNanos, TimeUnit.NANOSECONDS);
		// Cancelled on the I/O thread (where the reply completes) it leaves the loop's queue at once, without a lock.
		return () -> timeout.cancel(false);
	}

}
