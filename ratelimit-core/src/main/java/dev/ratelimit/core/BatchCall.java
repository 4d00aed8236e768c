package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

/** A call of the decision script: one member's own, or {@code batch.lua}'s for several (see its ARGV). */
record BatchCall(LuaScript script, List<String> keys, List<String> args) {

	/** The call of {@code members}: rate_limit.lua's for one, batch.lua's for several, in their order. */
	static BatchCall of(List<BatchMember> members) {
		if (members.size() == 1) {
			BatchMember member = members.get(0);
			return new BatchCall(DecisionScripts.forLimits(member.limits), member.call.keys(), member.call.args());
		}
		int algorithms = 0;
		int keyCount = 0;
		int argCount = 2;
		boolean serverTime = false;
		for (BatchMember member : members) {
			algorithms |= member.algorithms;
			keyCount += member.call.keys().size();
			argCount += 1 + member.call.args().size();
			serverTime |= member.call.args().get(0).equals(ScriptCalls.SERVER_TIME_ARG);
		}
		List<String> keys = new ArrayList<>(keyCount);
		List<String> args = new ArrayList<>(argCount);
		args.add(serverTime ? ScriptCalls.SERVER_TIME_ARG : "0");
		args.add(Integer.toString(members.size()));
		for (BatchMember member : members) {
			keys.addAll(member.call.keys());
			args.add(Integer.toString(member.limits.size()));
			args.addAll(member.call.args());
		}
		return new BatchCall(DecisionScripts.batch(algorithms), keys, args);
	}

	/** Answers each member of a batch of several from {@code batch.lua}'s reply. */
	static void answer(List<BatchMember> batch, List<Long> reply) {
		int at = 0;
		for (int i = 0; i < batch.size(); i++) {
			BatchMember member = batch.get(i);
			try {
				if (reply.get(at) == 0) {
					int values = ScriptReplies.PER_LIMIT * member.limits.size();
					member.decided(ScriptReplies.decisions(member.limits, reply.subList(at + 1, at + 1 + values)));
					at += 1 + values;
				}
				else {
					int length = reply.get(at + 1).intValue();
					member.fail(new IllegalStateException(
							"Redis answered this decision of a batch with an error: " + ScriptReplies.text(reply, at + 2, length)));
					at += 2 + length;
				}
			}
			catch (RuntimeException ex) {
				IllegalStateException malformed = new IllegalStateException(
						"batch script replied " + reply + " for " + batch.size() + " decisions", ex);
				for (BatchMember rest : batch.subList(i, batch.size())) {
					rest.fail(malformed);
				}
				return;
			}
		}
	}

}
