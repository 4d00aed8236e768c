package dev.ratelimit.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.core.ScriptCalls.Call;

/** One decision of {@link DecisionBatches}: its limits, its call as it would go alone, and its answer. */
final class BatchMember {

	final List<LimitRequest> limits;

	final Call call;

	/** The {@link DecisionScripts#set} of its limits. */
	final int algorithms;

	/** The characters of its KEYS and ARGV. */
	final int chars;

	/** Whether a thread waits for it ({@link DecisionBatches#decide}), which may send its batch. */
	final boolean waiting;

	final CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();

	/** For a waiting member: the batch it sends, or empty once it is answered. */
	final CompletableFuture<List<BatchMember>> woken = new CompletableFuture<>();

	BatchMember(List<LimitRequest> limits, Call call, int algorithms, boolean waiting) {
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
