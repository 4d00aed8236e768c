package dev.ratelimit.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The decisions of one lane of {@link DecisionBatches}: the calls in flight, and the decisions that wait for one to
 * return, in arrival order. A decision that finds no call in flight leaves at once, alone. One that makes a full batch
 * of those waiting leaves with them at once too, in one more call in flight (up to {@link #MAX_IN_FLIGHT}): a burst
 * is then sent in a few calls side by side rather than one after the other, each a round trip later than the one
 * before (on a busy machine each is also a wait for the CPU, of the client's threads and of Redis, and the last of a
 * burst of 100 missed its deadline).
 */
final class BatchLane {

	/**
	 * The most decisions one call carries: a script run holds up every other command of Redis for its time (about 5
	 * to 10 µs a decision inside Redis, docs/BENCHMARKS.md), and 32 keep it well under a millisecond.
	 */
	static final int MAX_MEMBERS = 32;

	/** The most characters of KEYS and ARGV one batch carries, unless a single decision is larger. */
	static final int MAX_CHARS = 32 * 1024;

	/** The most calls of a lane in flight at once, full batches but the first. */
	static final int MAX_IN_FLIGHT = 4;

	private final ArrayDeque<BatchMember> queue = new ArrayDeque<>();

	/** The characters of the members queued. */
	private int queuedChars;

	private int inFlight;

	/**
	 * Queues {@code member}; or, when no call is in flight, returns it alone to be sent, or when the members queued
	 * make a full batch and fewer than {@link #MAX_IN_FLIGHT} calls are in flight, returns that batch to be sent. The
	 * caller sends what it returns (a call in flight from then on).
	 */
	synchronized @Nullable List<BatchMember> join(BatchMember member) {
		if (this.inFlight == 0) {
			this.inFlight = 1;
			return List.of(member);
		}
		this.queue.add(member);
		this.queuedChars += member.chars;
		if (this.inFlight < MAX_IN_FLIGHT
				&& (this.queue.size() >= MAX_MEMBERS || this.queuedChars >= MAX_CHARS)) {
			List<BatchMember> batch = take();
			if (batch != null) {
				this.inFlight++;
			}
			return batch;
		}
		return null;
	}

	/**
	 * A call of the lane returned: the next batch to send in its place, in arrival order, or {@code null} when none
	 * waits. A member whose caller gave up already (completed: the starter cancels at the deadline) is dropped, unsent.
	 */
	synchronized @Nullable List<BatchMember> next() {
		List<BatchMember> batch = take();
		if (batch == null) {
			this.inFlight--;
		}
		return batch;
	}

	private @Nullable List<BatchMember> take() {
		List<BatchMember> batch = null;
		int chars = 0;
		BatchMember member;
		while ((member = this.queue.peek()) != null) {
			if (member.answer.isDone()) {
				this.queue.poll();
				this.queuedChars -= member.chars;
				member.woken.complete(List.of());
				continue;
			}
			if (batch != null && (batch.size() == MAX_MEMBERS || chars + member.chars > MAX_CHARS)) {
				break;
			}
			this.queue.poll();
			this.queuedChars -= member.chars;
			if (batch == null) {
				batch = new ArrayList<>();
			}
			batch.add(member);
			chars += member.chars;
		}
		return batch;
	}

}
