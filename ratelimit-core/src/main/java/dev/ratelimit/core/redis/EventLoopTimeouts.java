package dev.ratelimit.core.redis;

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

	/** What Redis has done with the limiter's commands, noted as the I/O thread writes them. */
	private final CallProgress progress = new CallProgress();

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
		return this.progress.oldestUnansweredSentAt();
	}

	@Override
	public long lastAnsweredAt() {
		return this.progress.lastAnsweredAt();
	}

	/** A command that notes when the I/O thread writes it and when Redis answers it. */
	private final class Timed<T> extends AsyncCommand<String, String, T> {

		private volatile CallProgress.@Nullable Call written;

		Timed(RedisCommand<String, String, T> command) {
			super(command);
		}

		@Override
		public void encode(ByteBuf buf) {
			if (this.written == null) {
				this.written = EventLoopTimeouts.this.progress.sent();
			}
			super.encode(buf);
		}

		private volatile boolean answered;

		@Override
		public void complete() {
			this.answered = true;
			EventLoopTimeouts.this.progress.answered(this.written);
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
			CallProgress.Call call = this.written;
			if (!this.answered && call != null && !isDone()) {
				EventLoopTimeouts.this.progress.endedUnanswered(call);
			}
		}

	}

}
