package dev.ratelimit.core.redis;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;

import org.jspecify.annotations.Nullable;

/**
 * What Redis has done with a client's calls ({@link FairDeadlines.Progress}), as the executor notes them: each call
 * when it is sent, and when it is answered or ends without an answer. One for the Lettuce client's commands
 * ({@link EventLoopTimeouts}) and the Jedis pool's calls ({@link PooledJedisScriptExecutor}).
 */
final class CallProgress implements FairDeadlines.Progress {

	/** The calls in the order sent; ended ones are dropped from the head as they are met. */
	private final Deque<Call> sent = new ConcurrentLinkedDeque<>();

	/** Long before any deadline while Redis has answered nothing: {@link System#nanoTime()} may be negative. */
	private volatile long lastAnsweredAt = System.nanoTime() - (1L << 62);

	/** When the oldest call that ended without an answer since Redis last answered was sent, or 0. */
	private volatile long unansweredSince;

	/** A call sent now, until it ends. */
	Call sent() {
		Call call = new Call(System.nanoTime());
		oldestUnansweredSentAt();
		this.sent.addLast(call);
		return call;
	}

	/**
	 * Redis answered a call (an error reply too): the client is reading what Redis sends.
	 * @param call the call, or {@code null} when it was not noted as sent
	 */
	void answered(@Nullable Call call) {
		if (call != null) {
			call.ended = true;
		}
		this.unansweredSince = 0;
		this.lastAnsweredAt = System.nanoTime();
	}

	/** The call timed out or lost its connection: unanswered, until Redis answers another call. */
	void endedUnanswered(Call call) {
		if (call.ended) {
			return;
		}
		call.ended = true;
		long since = this.unansweredSince;
		if (since == 0 || call.sentAt - since < 0) {
			this.unansweredSince = call.sentAt;
		}
	}

	@Override
	public @Nullable Long oldestUnansweredSentAt() {
		Call oldest;
		while ((oldest = this.sent.peekFirst()) != null && oldest.ended) {
			this.sent.remove(oldest);
		}
		long ended = this.unansweredSince;
		if (oldest == null) {
			return (ended != 0) ? ended : null;
		}
		return (ended != 0 && ended - oldest.sentAt < 0) ? ended : oldest.sentAt;
	}

	@Override
	public long lastAnsweredAt() {
		return this.lastAnsweredAt;
	}

	/** One call, from when it was sent ({@link System#nanoTime()}) until it ends. */
	static final class Call {

		private final long sentAt;

		private volatile boolean ended;

		private Call(long sentAt) {
			this.sentAt = sentAt;
		}

	}

}
