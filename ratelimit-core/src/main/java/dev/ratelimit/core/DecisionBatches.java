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
 * queued (at most {@link #MAX_MEMBERS} decisions and {@link #MAX_CHARS} characters of KEYS and ARGV) and answers
 * each exactly as its own call would have, in the order they arrived. A decision that finds its lane idle is sent at
 * once, alone, with today's script ({@code rate_limit.lua}): nothing ever waits for a batch to fill.
 *
 * <p>
 * One lane per limiter, or, on a Redis Cluster ({@link RedisRateLimiter#onCluster()}), one per hash slot: a script's
 * keys must share a slot, and a client's keys share its tag. Decisions of limits that record usage are sent alone
 * (usage.lua reads its values from the end of ARGV, one request's), as are peeks, settlements and the other scripts
 * ({@link RedisRateLimiter}).
 *
 * <p>
 * Who sends a batch: a caller that waits on its thread ({@link #decide}) sends its batch itself when it is the first
 * waiting caller of it (a leader, the others follow), so that no thread carries more than one call of others'
 * decisions and a blocking client (Jedis) keeps a thread per call in flight, as without batches. Batches of
 * asynchronous callers only ({@link #decideAsync}) are sent from the completion of the call before, which an
 * asynchronous executor (Lettuce, the starter's Jedis) does without blocking; on an executor that runs
 * {@link ScriptExecutor#executeAsync} on the caller's thread (the interface's default), asynchronous callers wait as
 * the blocking ones do.
 */
final class DecisionBatches {

	/**
	 * The most decisions one call carries: a script run holds up every other command of Redis for its time (about 5
	 * to 10 µs a decision inside Redis, docs/BENCHMARKS.md), and 32 keep it well under a millisecond.
	 */
	static final int MAX_MEMBERS = 32;

	/** The most characters of KEYS and ARGV one batch carries, unless a single decision is larger. */
	static final int MAX_CHARS = 32 * 1024;

	/** The reply's integers per limit, as {@link RedisRateLimiter#decisions} reads them. */
	private static final int REPLY_PER_LIMIT = 6;

	private final ScriptExecutor executor;

	/** Whether the executor's {@code executeAsync} runs on the caller's thread (the interface's default). */
	private final boolean blocking;

	private final IntConsumer sizes;

	/** The one lane, unless on a Cluster. */
	private final Lane lane = new Lane();

	/** A lane per hash slot on a Cluster, made when first used. */
	private final @Nullable AtomicReferenceArray<Lane> slots;

	/**
	 * @param executor the limiter's
	 * @param perSlot a lane per hash slot (a Redis Cluster)
	 * @param sizes told the number of decisions of every decision script call, once its reply is in
	 */
	DecisionBatches(ScriptExecutor executor, boolean perSlot, IntConsumer sizes) {
		this.executor = executor;
		this.blocking = blocking(executor);
		this.sizes = sizes;
		this.slots = perSlot ? new AtomicReferenceArray<>(ClusterSlots.SLOTS) : null;
	}

	/** Decides on this thread: sent at once, or queued and then sent by this thread or answered by another's call. */
	RateLimitDecision decide(List<LimitRequest> limits, Call call) {
		int algorithms = LuaScript.algorithms(limits);
		if (LuaScript.recordsUsage(algorithms)) {
			return alone(limits, call);
		}
		Member member = new Member(limits, call, algorithms, true);
		Lane lane = lane(call);
		if (lane.join(member)) {
			send(lane, List.of(member));
		}
		else {
			List<Member> lead = member.woken.join();
			if (!lead.isEmpty()) {
				send(lane, lead);
			}
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
		int algorithms = LuaScript.algorithms(limits);
		if (LuaScript.recordsUsage(algorithms)) {
			return this.executor.executeAsync(LuaScript.forLimits(limits), call.keys(), call.args())
				.thenApply((reply) -> {
					this.sizes.accept(1);
					return RedisRateLimiter.decisions(limits, reply);
				});
		}
		Member member = new Member(limits, call, algorithms, false);
		Lane lane = lane(call);
		if (lane.join(member)) {
			sendAsync(lane, List.of(member));
		}
		return member.answer;
	}

	private RateLimitDecision alone(List<LimitRequest> limits, Call call) {
		RateLimitDecision decision = RedisRateLimiter.decisions(limits,
				this.executor.execute(LuaScript.forLimits(limits), call.keys(), call.args()));
		this.sizes.accept(1);
		return decision;
	}

	private Lane lane(Call call) {
		AtomicReferenceArray<Lane> slots = this.slots;
		if (slots == null) {
			return this.lane;
		}
		int slot = slot(call.keys().get(0));
		Lane lane = slots.get(slot);
		if (lane == null) {
			slots.compareAndSet(slot, null, new Lane());
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
	private void send(Lane lane, List<Member> batch) {
		Batch call = Batch.of(batch);
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
	private void sendAsync(Lane lane, List<Member> batch) {
		Batch call = Batch.of(batch);
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
	private void finished(Lane lane, List<Member> batch, @Nullable List<Long> reply, @Nullable Throwable failure) {
		List<Member> next = lane.next();
		if (next != null) {
			Member leader = null;
			for (Member member : next) {
				if (member.waiting) {
					leader = member;
					break;
				}
			}
			if (leader != null) {
				leader.woken.complete(next);
			}
			else {
				sendAsync(lane, next);
			}
		}
		answer(batch, reply, failure);
	}

	private void answer(List<Member> batch, @Nullable List<Long> reply, @Nullable Throwable failure) {
		try {
			this.sizes.accept(batch.size());
		}
		catch (RuntimeException ex) {
			// a listener's failure is not the decisions'
		}
		if (failure != null || reply == null) {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			if (batch.size() > 1 && crossSlot(cause)) {
				for (Member member : batch) {
					sendAlone(member);
				}
				return;
			}
			for (Member member : batch) {
				member.fail((cause != null) ? cause : new IllegalStateException("no reply"));
			}
			return;
		}
		if (batch.size() == 1) {
			Member member = batch.get(0);
			try {
				member.decided(RedisRateLimiter.decisions(member.limits, reply));
			}
			catch (RuntimeException ex) {
				member.fail(ex);
			}
			return;
		}
		int at = 0;
		for (int i = 0; i < batch.size(); i++) {
			Member member = batch.get(i);
			try {
				if (reply.get(at) == 0) {
					int values = REPLY_PER_LIMIT * member.limits.size();
					member.decided(RedisRateLimiter.decisions(member.limits, reply.subList(at + 1, at + 1 + values)));
					at += 1 + values;
				}
				else {
					int length = reply.get(at + 1).intValue();
					member.fail(new IllegalStateException(
							"Redis answered this decision of a batch with an error: " + RedisRateLimiter.text(reply, at + 2, length)));
					at += 2 + length;
				}
			}
			catch (RuntimeException ex) {
				IllegalStateException malformed = new IllegalStateException(
						"batch script replied " + reply + " for " + batch.size() + " decisions", ex);
				for (Member rest : batch.subList(i, batch.size())) {
					rest.fail(malformed);
				}
				return;
			}
		}
	}

	/**
	 * A member of a batch that Redis refused for its keys' slots (a Redis Cluster that this limiter was not told of,
	 * {@link RedisRateLimiter#onCluster()}): sent again alone, as without batches.
	 */
	private void sendAlone(Member member) {
		CompletionStage<List<Long>> reply;
		try {
			reply = this.executor.executeAsync(LuaScript.forLimits(member.limits), member.call.keys(),
					member.call.args());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((answer, failure) -> answer(List.of(member), answer, failure));
	}

	/** Redis' {@code CROSSSLOT} (Lettuce), Jedis' own refusal to send keys of several slots ("Keys must belong to same hashslot"). */
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

	/** One decision: its limits, its call as it would go alone, and its answer. */
	private static final class Member {

		final List<LimitRequest> limits;

		final Call call;

		/** {@link LuaScript#algorithms} of its limits. */
		final int algorithms;

		/** The characters of its KEYS and ARGV. */
		final int chars;

		/** Whether a thread waits for it ({@link #decide}), which may send its batch. */
		final boolean waiting;

		final CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();

		/** For a waiting member: the batch it sends, or empty once it is answered. */
		final CompletableFuture<List<Member>> woken = new CompletableFuture<>();

		Member(List<LimitRequest> limits, Call call, int algorithms, boolean waiting) {
			this.limits = limits;
			this.call = call;
			this.algorithms = algorithms;
			this.chars = call.chars();
			this.waiting = waiting;
		}

		void decided(RateLimitDecision decision) {
			this.answer.complete(decision);
			this.woken.complete(List.of());
		}

		void fail(Throwable failure) {
			this.answer.completeExceptionally(failure);
			this.woken.complete(List.of());
		}

	}

	/** A call of the decision script: one member's own, or {@code batch.lua}'s for several (see its ARGV). */
	private record Batch(LuaScript script, List<String> keys, List<String> args) {

		static Batch of(List<Member> members) {
			if (members.size() == 1) {
				Member member = members.get(0);
				return new Batch(LuaScript.forLimits(member.limits), member.call.keys(), member.call.args());
			}
			int algorithms = 0;
			int keyCount = 0;
			int argCount = 2;
			boolean serverTime = false;
			for (Member member : members) {
				algorithms |= member.algorithms;
				keyCount += member.call.keys().size();
				argCount += 1 + member.call.args().size();
				serverTime |= member.call.args().get(0).equals(ScriptCalls.SERVER_TIME_ARG);
			}
			List<String> keys = new ArrayList<>(keyCount);
			List<String> args = new ArrayList<>(argCount);
			args.add(serverTime ? ScriptCalls.SERVER_TIME_ARG : "0");
			args.add(Integer.toString(members.size()));
			for (Member member : members) {
				keys.addAll(member.call.keys());
				args.add(Integer.toString(member.limits.size()));
				args.addAll(member.call.args());
			}
			return new Batch(LuaScript.forBatch(algorithms), keys, args);
		}

	}

	/** The decisions of one lane: whether a call is in flight, and those that wait for it to return. */
	private static final class Lane {

		private final ArrayDeque<Member> queue = new ArrayDeque<>();

		private boolean busy;

		/** Queues {@code member} behind the call in flight, or returns true: none is, and it leaves at once. */
		synchronized boolean join(Member member) {
			if (this.busy) {
				this.queue.add(member);
				return false;
			}
			this.busy = true;
			return true;
		}

		/**
		 * The next batch, in arrival order, or {@code null} (the lane is then idle). A member whose caller gave up
		 * already (completed, the starter cancels at the deadline) is dropped, unsent.
		 */
		synchronized @Nullable List<Member> next() {
			List<Member> batch = null;
			int chars = 0;
			Member member;
			while ((member = this.queue.peek()) != null) {
				if (member.answer.isDone()) {
					this.queue.poll();
					member.woken.complete(List.of());
					continue;
				}
				if (batch != null && (batch.size() == MAX_MEMBERS || chars + member.chars > MAX_CHARS)) {
					break;
				}
				this.queue.poll();
				if (batch == null) {
					batch = new ArrayList<>();
				}
				batch.add(member);
				chars += member.chars;
			}
			if (batch == null) {
				this.busy = false;
			}
			return batch;
		}

	}

}
