package dev.ratelimit.spring.observation;

import java.util.List;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What one observed operation of the limiter knows: which operation, the limits it concerns and their algorithms, and
 * its outcome once it has one. Never a client key: the key values made of it go to every metrics backend, where a
 * value per client would flood them.
 */
public class RateLimitObservationContext extends Observation.Context {

	private final RateLimitOperation operation;

	private final List<String> limits;

	private final List<String> algorithms;

	private @Nullable String outcome;

	/** The key values' limits and algorithms, joined once: the convention reads them at the start and the stop. */
	private final String joinedLimits;

	private final String joinedAlgorithms;

	/**
	 * @param operation what the limiter does
	 * @param limits the names of the limits concerned, in the order they were decided (several when their client keys
	 * are equal and one script call decides them)
	 * @param algorithms the algorithms of those limits, each once, in the same order ({@code token-bucket},
	 * {@code sliding-log}, {@code sliding-window-counter}, {@code fixed-window}, {@code concurrency})
	 */
	public RateLimitObservationContext(RateLimitOperation operation, List<String> limits, List<String> algorithms) {
		this.operation = operation;
		this.limits = List.copyOf(limits);
		this.algorithms = List.copyOf(algorithms);
		this.joinedLimits = join(this.limits);
		this.joinedAlgorithms = join(this.algorithms);
	}

	public RateLimitOperation getOperation() {
		return this.operation;
	}

	/** The names of the limits concerned, in the order they were decided. */
	public List<String> getLimits() {
		return this.limits;
	}

	/** The algorithms of those limits, each once. */
	public List<String> getAlgorithms() {
		return this.algorithms;
	}

	/**
	 * The outcome, {@code null} until the operation has one: for a decision, the values of the
	 * {@code ratelimit.decisions} metric's {@code outcome} ({@code allowed}, {@code denied}, {@code shadow-denied},
	 * {@code local-allowed}, {@code local-denied}, {@code fail-open}, {@code fail-closed}) and
	 * {@code remembered-denied} for a denial this instance remembered, decided without a call to Redis; for the other
	 * operations, the values their {@link RateLimitOperation} lists.
	 */
	/** The limits' names, separated by commas. */
	String joinedLimits() {
		return this.joinedLimits;
	}

	/** The algorithms, separated by commas. */
	String joinedAlgorithms() {
		return this.joinedAlgorithms;
	}

	private static String join(List<String> values) {
		// one limit (the usual decision): its name as it is, not a copy
		return (values.size() == 1) ? values.get(0) : String.join(",", values);
	}

	public @Nullable String getOutcome() {
		return this.outcome;
	}

	public void setOutcome(@Nullable String outcome) {
		this.outcome = outcome;
	}

}
