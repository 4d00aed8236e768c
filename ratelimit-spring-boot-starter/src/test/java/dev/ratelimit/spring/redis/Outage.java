package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.ratelimit.spring.redis.FailoverTraffic.Answer;
import dev.ratelimit.spring.redis.FailoverTraffic.Kind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the instances answered around a Redis outage: {@code failed}, when the server was killed, frozen or stopped
 * (the {@link System#nanoTime()} after it was); {@code recovered}, when Redis could decide again (a replica's
 * promotion, a restart); and per instance, when it gave the first answer with Redis's decision after that, and how
 * many requests failed open in between.
 *
 * @param answers every answer, in the order received
 * @param failed when the server failed
 * @param recovered when Redis could decide again: the earliest time it can have happened, so that what is measured
 * from it is never less than the truth
 * @param decided what counts as Redis's decision once it is back: {@link Kind#DENIED} where the state survived (a
 * failover to a replica in sync), also {@link Kind#ADMITTED} where it did not (a restart without persistence)
 */
record Outage(List<Answer> answers, long failed, long recovered, Set<Kind> decided) {

	/**
	 * The first answer of {@code instance} with Redis's decision of a request sent after {@link #failed} (one sent
	 * before may have been decided before the failure), or {@code null}.
	 */
	Answer firstDecision(String instance) {
		return after(instance, this.failed).stream()
			.filter((answer) -> answer.sent() > this.failed && this.decided.contains(answer.kind()))
			.findFirst()
			.orElse(null);
	}

	/** How long after {@link #recovered} {@code instance} answered with Redis's decision. */
	Duration resumedAfterRecovery(String instance) {
		return Duration.ofNanos(firstDecision(instance).received() - this.recovered);
	}

	/** Fail-open answers of {@code instance} received after {@code since} and before its first decision. */
	long failedOpen(String instance, long since) {
		long until = firstDecision(instance).received();
		return after(instance, since).stream()
			.filter((answer) -> answer.received() < until && answer.kind() == Kind.FAILED_OPEN)
			.count();
	}

	/** One line per instance, for the test's output and docs/FAILURES.md. */
	String report(String title, List<String> instances) {
		StringBuilder report = new StringBuilder(title).append(String.format(Locale.ROOT,
				": Redis could decide again %.2f s after the failure%n", seconds(this.recovered - this.failed)));
		for (String instance : instances) {
			Answer first = firstDecision(instance);
			if (first == null) {
				report.append("  ").append(instance).append(": no decision of Redis yet\n");
				continue;
			}
			report.append(String.format(Locale.ROOT,
					"  %s: first decision of Redis %.2f s after recovery (%.2f s after the failure); "
							+ "%d fail-open answers since the failure, %d of them after recovery; %d answers in all since%n",
					instance, seconds(first.received() - this.recovered), seconds(first.received() - this.failed),
					failedOpen(instance, this.failed), failedOpen(instance, this.recovered),
					after(instance, this.failed).size()));
		}
		return report.toString();
	}

	/**
	 * Every answer of {@code instance} since the failure followed its failure policy or was Redis's decision, within
	 * {@code bound}: no 500, no 503 (the limit fails open), no admission by Redis where the state survived, no long
	 * wait; and from its first decision of Redis on, every answer was Redis's.
	 */
	void assertEveryAnswerFollowedThePolicy(String instance, Duration bound) {
		List<Answer> since = after(instance, this.failed);
		assertThat(since).as(instance + " since the failure")
			.allSatisfy((answer) -> assertThat(answer.kind()).as(answer.toString())
				.isIn(union(this.decided, Kind.FAILED_OPEN)));
		assertThat(since).as(instance + " since the failure")
			.allSatisfy((answer) -> assertThat(answer.elapsed()).as(answer.toString()).isLessThan(bound));
		long resumed = firstDecision(instance).received();
		assertThat(since).as(instance + " after its first decision of Redis")
			.filteredOn((answer) -> answer.sent() > resumed)
			.allSatisfy((answer) -> assertThat(answer.kind()).as(answer.toString()).isIn(this.decided));
	}

	/** Whether {@code instance} has answered with Redis's decision and then {@code more} times since. */
	static boolean resumed(List<Answer> answers, long failed, Set<Kind> decided, String instance, int more) {
		Outage outage = new Outage(answers, failed, failed, decided);
		Answer first = outage.firstDecision(instance);
		return first != null && outage.after(instance, first.received()).size() >= more;
	}

	private List<Answer> after(String instance, long since) {
		List<Answer> after = new ArrayList<>();
		for (Answer answer : this.answers) {
			if (answer.instance().equals(instance) && answer.received() > since) {
				after.add(answer);
			}
		}
		return after;
	}

	private static Set<Kind> union(Set<Kind> kinds, Kind kind) {
		EnumSet<Kind> union = EnumSet.copyOf(kinds);
		union.add(kind);
		return union;
	}

	private static double seconds(long nanos) {
		return nanos / 1e9;
	}

}
