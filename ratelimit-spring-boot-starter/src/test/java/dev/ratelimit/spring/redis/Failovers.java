package dev.ratelimit.spring.redis;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.ratelimit.spring.redis.FailoverApplication.Instance;
import dev.ratelimit.spring.redis.FailoverTraffic.Answer;
import dev.ratelimit.spring.redis.FailoverTraffic.Kind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The steps the failover tests share: use up a client's budget, fail Redis under that client's traffic, wait for
 * Redis to be able to decide again and for every instance to decide with it, and check what the instances answered.
 */
final class Failovers {

	/** What the limiter promises: decisions of Redis within 2 s of Redis being able to make them again. */
	static final Duration RESUME = Duration.ofSeconds(2);

	/**
	 * For a loaded 2-core machine (a Spring MVC request and the servers' scheduling) and the measurement itself: a
	 * request under way to the failed server when the limiter moves on takes its whole timeout (250 ms) before the
	 * next one can show the change, and the recovery is polled every few milliseconds. A wait for Lettuce's default
	 * adaptive-refresh timeout (30 s) exceeds it by far.
	 */
	static final Duration MARGIN = Duration.ofMillis(1500);

	/** Longest answer while Redis fails: the default timeout (250 ms) and 1.25 s for a loaded machine. */
	static final Duration BOUND = Duration.ofMillis(1500);

	/** The longest a test waits for the instances to resume, so that it reports what they do even when they are late. */
	static final Duration REPORT_WAIT = Duration.ofSeconds(40);

	private Failovers() {
	}

	/** How Redis comes back. */
	interface Recovery {

		/**
		 * Waits until Redis can decide again, or makes it so.
		 * @param traffic the requests under way
		 * @param failed when Redis failed
		 * @return the earliest time Redis can have been able to decide again
		 */
		long await(FailoverTraffic traffic, long failed);

	}

	/** {@link FailoverApplication#LIMIT} admitted over the instances, then a denial of Redis from each. */
	static void exhaust(List<Instance> instances, String client) {
		for (int i = 0; i < FailoverApplication.LIMIT; i++) {
			Answer answer = FailoverTraffic.once(instances.get(i % instances.size()), client);
			assertThat(answer.kind()).as(answer.toString()).isEqualTo(Kind.ADMITTED);
		}
		for (Instance instance : instances) {
			Answer answer = FailoverTraffic.once(instance, client);
			assertThat(answer.kind()).as(answer.toString()).isEqualTo(Kind.DENIED);
		}
	}

	/**
	 * Sends {@code client}'s requests to every instance; once each has answered one with a denial of Redis, runs
	 * {@code fail}, then {@code recovery}, and waits until each instance has answered with a decision of Redis
	 * ({@code decided}) and five more times since.
	 * @param recovery waits until Redis can decide again (or makes it so), and returns the earliest time that can
	 * have happened
	 */
	static Outage outage(List<Instance> instances, String client, Runnable fail, Recovery recovery,
			Set<Kind> decided) {
		List<String> names = names(instances);
		try (FailoverTraffic traffic = new FailoverTraffic(instances, client)) {
			long start = System.nanoTime();
			traffic.await("a denial from every instance before the failure",
					(answers) -> names.stream()
						.allMatch((name) -> Outage.resumed(answers, start, Set.of(Kind.DENIED), name, 0)),
					Duration.ofSeconds(10));
			fail.run();
			long failed = System.nanoTime();
			long recovered = recovery.await(traffic, failed);
			traffic.awaitAtMost((answers) -> names.stream()
				.allMatch((name) -> Outage.resumed(answers, failed, decided, name, 5)), REPORT_WAIT);
			return new Outage(traffic.answers(), failed, recovered, decided);
		}
	}

	/**
	 * Prints the outage's report; then checks that each instance decided with Redis within {@link #RESUME} and
	 * {@link #MARGIN} of the recovery, and answered every request by its failure policy or with Redis's decision.
	 */
	static void assertResumed(Outage outage, List<Instance> instances, String title) {
		System.out.print(outage.report(title, names(instances)));
		for (String name : names(instances)) {
			assertThat(outage.firstDecision(name)).as(name + ": a decision of Redis after the recovery").isNotNull();
			assertThat(outage.resumedAfterRecovery(name)).as(name + ": recovery to the first decision of Redis")
				.isLessThanOrEqualTo(RESUME.plus(MARGIN));
			outage.assertEveryAnswerFollowedThePolicy(name, BOUND);
		}
	}

	/**
	 * Polls {@code done} every 5 ms until it holds. A poll that fails counts as false: a Sentinel closes the
	 * connections of a replica it promotes, the poll's among them.
	 * @return the earliest time it can have come true: when the last poll that found it false began
	 */
	static long awaitEvent(String what, BooleanSupplier done, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		long lastFalse = System.nanoTime();
		while (true) {
			long polled = System.nanoTime();
			if (holds(done)) {
				return lastFalse;
			}
			lastFalse = polled;
			assertThat(polled).as(what + " within " + timeout).isLessThan(deadline);
			LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
		}
	}

	/** Waits until every instance has failed open since {@code failed}. */
	static void awaitFailedOpen(FailoverTraffic traffic, List<Instance> instances, long failed) {
		traffic.await("a fail-open answer from every instance", (answers) -> names(instances).stream()
			.allMatch((name) -> answers.stream()
				.anyMatch((answer) -> answer.instance().equals(name) && answer.sent() > failed
						&& answer.kind() == Kind.FAILED_OPEN)),
				Duration.ofSeconds(10));
	}

	private static boolean holds(BooleanSupplier condition) {
		try {
			return condition.getAsBoolean();
		}
		catch (UncheckedIOException | IllegalStateException ex) {
			return false;
		}
	}

	private static List<String> names(List<Instance> instances) {
		return instances.stream().map(Instance::name).toList();
	}

}
