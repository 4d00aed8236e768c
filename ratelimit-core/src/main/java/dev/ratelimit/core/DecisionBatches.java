package dev.ratelimit.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

import dev.ratelimit.core.ScriptCalls.Call;
import org.jspecify.annotations.Nullable;

/**
 * Group commit of {@link RedisRateLimiter}'s decisions: while a decision script call is in flight in a lane, the
 * decisions that arrive for that lane queue here; when the call returns, one call of {@code batch.lua} carries what
 * queued (at most {@link BatchLane#MAX_MEMBERS} decisions and {@link BatchLane#MAX_CHARS} characters of KEYS and
 * ARGV) and answers each exactly as its own call would have, in the order they arrived. A decision that finds its
 * lane idle is sent at once, alone, with today's script ({@code rate_limit.lua}): nothing ever waits for a batch to
 * fill; nor does a full batch wait for the call in flight (a burst leaves in several calls side by side,
 * {@link BatchLane}).
 *
 * <p>
 * One lane per limiter, or, on a Redis Cluster ({@link RedisRateLimiter#onCluster()}), one per hash slot: a script's
 * keys must share a slot, and a client's keys share its tag. Decisions of limits that record usage are sent alone
 * (usage.lua reads its values from the end of ARGV, one request's), as are peeks, settlements and the other scripts
 * ({@link RedisRateLimiter}).
 *
 * <p>
 * Who sends a batch: a caller that waits on its thread ({@link #decide}) sends its batch itself when it is the first
 * waiting caller of it (a leader, the others follow), or the full batch its arrival made, so that no thread carries
 * more than a call or two of others' decisions and a blocking client (Jedis) keeps a thread per call in flight, as
 * without batches. Batches of
 * asynchronous callers only ({@link #decideAsync}) are sent from the completion of the call before, which an
 * asynchronous executor (Lettuce, the starter's Jedis) does without blocking; on an executor that runs
 * {@link ScriptExecutor#executeAsync} on the caller's thread (the interface's default), asynchronous callers wait as
 * the blocking ones do. A waiting caller queued behind an asynchronous call waits for that call's end, which the
 * client's own command timeout bounds (the starter's callers are asynchronous, bounded by their deadlines).
 */
final class DecisionBatches {

	private final ScriptExecutor executor;

	/** Whether the executor's {@code executeAsync} runs on the caller's thread (the interface's default). */
	private final boolean blocking;

	private final IntConsumer sizes;

	/** The one lane, unless on a Cluster. */
	private final BatchLane lane = new BatchLane();

	/** A lane per hash slot on a Cluster, made when first used. */
	private final @Nullable AtomicReferenceArray<BatchLane> slots;

	/**
	 * @param executor the limiter's
	 * @param perSlot a lane per hash slot (a Redis Cluster)
	 * @param sizes told the number of decisions of every decision script call, once its reply is in; it throws nothing
	 */
	DecisionBatches(ScriptExecutor executor, boolean perSlot, IntConsumer sizes) {
		this.executor = executor;
		this.blocking = blocking(executor);
		this.sizes = sizes;
		this.slots = perSlot ? new AtomicReferenceArray<>(ClusterSlots.SLOTS) : null;
	}

	/** Decides on this thread: sent at once, or queued and then sent by this thread or answered by another's call. */
	RateLimitDecision decide(List<LimitRequest> limits, Call call) {
		int algorithms = DecisionScripts.set(limits);
		if (DecisionScripts.recordsUsage(algorithms)) {
			return alone(this.executor, this.sizes, limits, call);
		}
		BatchMember member = new BatchMember(limits, call, algorithms, true);
		BatchLane lane = lane(call);
		List<BatchMember> now = lane.join(member);
		if (now != null) {
			send(lane, now);
		}
		// answered by now when it was in what this thread sent; else woken to send its batch, or answered
		List<BatchMember> lead = member.woken.join();
		if (!lead.isEmpty()) {
			send(lane, lead);
		}
		try {
			return member.answer.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
		}
	}

	/**
	 * Decides without waiting: sent at once, or queued and sent from the completion of the call in flight. A member
	 * whose stage is completed before its batch leaves (the starter cancels it at the request's deadline) is not sent:
	 * it consumes nothing.
	 */
	CompletionStage<RateLimitDecision> decideAsync(List<LimitRequest> limits, Call call) {
		if (this.blocking) {
			try {
				return CompletableFuture.completedFuture(decide(limits, call));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		int algorithms = DecisionScripts.set(limits);
		if (DecisionScripts.recordsUsage(algorithms)) {
			return aloneAsync(this.executor, this.sizes, limits, call);
		}
		BatchMember member = new BatchMember(limits, call, algorithms, false);
		BatchLane lane = lane(call);
		List<BatchMember> now = lane.join(member);
		if (now != null) {
			dispatch(lane, now);
		}
		return member.answer;
	}

	/**
	 * A decision in a call of its own, on this thread: what a limiter without batches sends, and a decision that
	 * records usage. {@code sizes} is told 1.
	 */
	static RateLimitDecision alone(ScriptExecutor executor, IntConsumer sizes, List<LimitRequest> limits, Call call) {
		RateLimitDecision decision = ScriptReplies.decisions(limits,
				executor.execute(DecisionScripts.forLimits(limits), call.keys(), call.args()));
		sizes.accept(1);
		return decision;
	}

	/** {@link #alone}, without waiting. */
	static CompletionStage<RateLimitDecision> aloneAsync(ScriptExecutor executor, IntConsumer sizes,
			List<LimitRequest> limits, Call call) {
		return executor.executeAsync(DecisionScripts.forLimits(limits), call.keys(), call.args()).thenApply((reply) -> {
			sizes.accept(1);
			return ScriptReplies.decisions(limits, reply);
		});
	}

	private BatchLane lane(Call call) {
		AtomicReferenceArray<BatchLane> slots = this.slots;
		if (slots == null) {
			return this.lane;
		}
		int slot = slot(call.keys().get(0));
		BatchLane lane = slots.get(slot);
		if (lane == null) {
			slots.compareAndSet(slot, null, new BatchLane());
			lane = slots.get(slot);
		}
		return lane;
	}

	/** The hash slot of a state key, by its client's tag (RedisKeys: the prefix holds no brace). */
	private static int slot(String key) {
		int open = key.indexOf('{');
		return ClusterSlots.slot(key.substring(open + 1, key.indexOf('}', open)));
	}

	/** Sends {@code batch} on this thread and waits for its reply. */
	private void send(BatchLane lane, List<BatchMember> batch) {
		BatchCall call = BatchCall.of(batch);
		List<Long> reply = null;
		Throwable failure = null;
		try {
			reply = this.executor.execute(call.script(), call.keys(), call.args());
		}
		catch (RuntimeException | Error ex) {
			failure = ex;
		}
		finished(lane, batch, reply, failure);
		if (failure instanceof Error error) {
			throw error;
		}
	}

	/** Sends {@code batch} without waiting; its completion sends the next. */
	private void sendAsync(BatchLane lane, List<BatchMember> batch) {
		BatchCall call = BatchCall.of(batch);
		CompletionStage<List<Long>> reply;
		try {
			reply = this.executor.executeAsync(call.script(), call.keys(), call.args());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((answer, failure) -> finished(lane, batch, answer, failure));
	}

	/** A call of the lane returned: the next batch leaves, then the members of this one are answered. */
	private void finished(BatchLane lane, List<BatchMember> batch, @Nullable List<Long> reply,
			@Nullable Throwable failure) {
		List<BatchMember> next = lane.next();
		if (next != null) {
			dispatch(lane, next);
		}
		answer(batch, reply, failure);
	}

	/** Has {@code batch} sent: by its first waiting member, on its thread, or from here without waiting. */
	private void dispatch(BatchLane lane, List<BatchMember> batch) {
		for (BatchMember member : batch) {
			if (member.waiting) {
				member.woken.complete(batch);
				return;
			}
		}
		sendAsync(lane, batch);
	}

	private void answer(List<BatchMember> batch, @Nullable List<Long> reply, @Nullable Throwable failure) {
		this.sizes.accept(batch.size());
		if (failure != null || reply == null) {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			if (batch.size() > 1 && crossSlot(cause)) {
				for (BatchMember member : batch) {
					sendAlone(member);
				}
				return;
			}
			for (BatchMember member : batch) {
				member.fail((cause != null) ? cause : new IllegalStateException("no reply"));
			}
			return;
		}
		if (batch.size() == 1) {
			BatchMember member = batch.get(0);
			try {
				member.decided(ScriptReplies.decisions(member.limits, reply));
			}
			catch (RuntimeException ex) {
				member.fail(ex);
			}
			return;
		}
		BatchCall.answer(batch, reply);
	}

	/**
	 * A member of a batch that Redis refused for its keys' slots (a Redis Cluster that this limiter was not told of,
	 * {@link RedisRateLimiter#onCluster()}): sent again alone, as without batches.
	 */
	private void sendAlone(BatchMember member) {
		CompletionStage<List<Long>> reply;
		try {
			reply = this.executor.executeAsync(DecisionScripts.forLimits(member.limits), member.call.keys(),
					member.call.args());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((answer, failure) -> answer(List.of(member), answer, failure));
	}

	/**
	 * Redis' {@code CROSSSLOT} (Lettuce), Jedis' own refusal to send keys of several slots ("Keys must belong to same
	 * hashslot").
	 */
	private static boolean crossSlot(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && (message.contains("CROSSSLOT") || message.contains("same hashslot")
					|| message.contains("different slots"))) {
				return true;
			}
		}
		return false;
	}

	/** Whether {@code executor} keeps the interface's {@code executeAsync}, which runs on the caller's thread. */
	private static boolean blocking(ScriptExecutor executor) {
		try {
			return executor.getClass()
				.getMethod("executeAsync", LuaScript.class, List.class, List.class)
				.getDeclaringClass() == ScriptExecutor.class;
		}
		catch (NoSuchMethodException ex) {
			return true;
		}
	}

}
