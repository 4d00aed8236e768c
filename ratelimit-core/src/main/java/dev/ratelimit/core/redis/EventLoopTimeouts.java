package dev.ratelimit.core.redis;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The timer and the progress of {@link FairDeadlines} for the limiter's Lettuce client: deadlines run on the one I/O
 * thread that writes the limiter's commands and reads Redis's replies, and the commands note when that thread writes
 * them and when their answers come.
 *
 * <p>
 * A Netty event loop reads what its sockets hold before it runs its due tasks, in every iteration: a deadline that is
 * one of those tasks finds every reply that had arrived by the time the loop got to run already read, however busy
 * the application kept the loop. Until the first connection exists (Redis down at startup), no reply can arrive, and
 * the deadlines run on Lettuce's computation threads.
 *
 * <p>
 * It learns the I/O thread as the client's {@code NettyCustomizer} ({@code DefaultClientResources.builder()
 * .nettyCustomizer(it)}, with one I/O thread, as the starter builds it); a client built without it still has its
 * commands timed, and its deadlines run on {@code beforeFirstConnection}.
 */
public final class EventLoopTimeouts implements Timeouts, FairDeadlines.Progress, NettyCustomizer {

	private final Supplier<EventExecutorGroup> beforeFirstConnection;

	/** The limiter's commands in the order written, answered ones dropped from the head as they are met. */
	private final Deque<Timed<?>> written = new ConcurrentLinkedDeque<>();

	/** Long before any deadline while Redis has answered nothing: {@link System#nanoTime()} may be negative. */
	private volatile long lastAnsweredAt = System.nanoTime() - (1L << 62);

	/** When the oldest command that ended without an answer since Redis last answered was written, or 0. */
	private volatile long unansweredSince;

	private volatile @Nullable EventLoop eventLoop;

	/** @param beforeFirstConnection where deadlines run until a connection exists (Lettuce's computation pool) */
	public EventLoopTimeouts(Supplier<EventExecutorGroup> beforeFirstConnection) {
		this.beforeFirstConnection = beforeFirstConnection;
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		this.eventLoop = channel.eventLoop();
	}

	private volatile Runnable whenSilent = () -> {
	};

	/** Runs {@code action} whenever a request's deadline passes with Redis silent (a cluster refreshes its topology). */
	public void whenSilent(Runnable action) {
		this.whenSilent = action;
	}

	/** A request's deadline passed with Redis silent. */
	void silent() {
		this.whenSilent.run();
	}

	@Override
	public Runnable schedule(Runnable task, long delayNanos) {
		EventLoop loop = this.eventLoop;
		EventExecutorGroup executor = (loop != null && !loop.isShuttingDown()) ? loop : this.beforeFirstConnection.get();
		Future<?> scheduled = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
		// Cancelled on the I/O thread (where the reply completes) it leaves the loop's queue at once, without a lock.
		return () -> scheduled.cancel(false);
	}

	/** {@code command}, noting when the I/O thread writes it and when it is answered; to be dispatched. */
	<T> AsyncCommand<String, String, T> timed(RedisCommand<String, String, T> command) {
		return new Timed<>(command);
	}

	@Override
	public @Nullable Long oldestUnansweredSentAt() {
		Timed<?> oldest;
		while ((oldest = this.written.peekFirst()) != null && oldest.isDone()) {
			this.written.remove(oldest);
		}
		long ended = this.unansweredSince;
		if (oldest == null) {
			return (ended != 0) ? ended : null;
		}
		return (ended != 0 && ended - oldest.writtenAt < 0) ? ended : oldest.writtenAt;
	}

	@Override
	public long lastAnsweredAt() {
		return this.lastAnsweredAt;
	}

	/** A command that notes when the I/O thread writes it (joining the written ones) and when Redis answers it. */
	private final class Timed<T> extends AsyncCommand<String, String, T> {

		private volatile long writtenAt;

		Timed(RedisCommand<String, String, T> command) {
			super(command);
		}

		@Override
		public void encode(ByteBuf buf) {
			if (this.writtenAt == 0) {
				this.writtenAt = System.nanoTime();
				oldestUnansweredSentAt();
				EventLoopTimeouts.this.written.addLast(this);
			}
			super.encode(buf);
		}

		private volatile boolean answered;

		@Override
		public void complete() {
			// Redis answered (an error reply too): the client is reading what Redis sends
			this.answered = true;
			EventLoopTimeouts.this.unansweredSince = 0;
			EventLoopTimeouts.this.lastAnsweredAt = System.nanoTime();
			super.complete();
		}

		@Override
		public boolean completeExceptionally(Throwable ex) {
			endedUnanswered();
			return super.completeExceptionally(ex);
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			endedUnanswered();
			return super.cancel(mayInterruptIfRunning);
		}

		/** Timed out, or its connection closed: Redis has not answered it (an error reply comes through complete). */
		private void endedUnanswered() {
			long written = this.writtenAt;
			if (!this.answered && written != 0 && !isDone()) {
				long ended = EventLoopTimeouts.this.unansweredSince;
				if (ended == 0 || written - ended < 0) {
					EventLoopTimeouts.this.unansweredSince = written;
				}
			}
		}

	}

}
