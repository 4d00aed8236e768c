package dev.ratelimit.sample;

import java.util.Locale;

import dev.ratelimit.core.Algorithm;

/**
 * The comparison's results in the layout of {@code docs/ALGORITHMS.md}: the same Markdown tables, same columns and
 * algorithm names, so the output can be set beside the spec (and parsed by the end-to-end test).
 */
final class ComparisonReport {

	/** Printed in place of the memory table when the limiter keeps its state in memory. */
	private static final String IN_MEMORY_MEMORY = "Memory per client after the steady run: n/a (in-memory store):"
			+ " MEMORY USAGE measures Redis keys, and with ratelimit.store=in-memory the limiter writes none.\n";

	private ComparisonReport() {
	}

	/**
	 * The report of a run on Redis.
	 * @param results what the comparison measured, with the memory of each steady run
	 * @param redis which Redis was used, for the header
	 * @param version its {@code redis_version}
	 * @param keyPrefix the run's key prefix
	 */
	@SuppressWarnings("NullAway") // row.memory(): a run on Redis measured it
	static String format(ReferenceComparison.Results results, String redis, String version, String keyPrefix) {
		StringBuilder out = header(new StringBuilder());
		out.append("Redis ").append(version).append(" at ").append(redis).append(", keys under ").append(keyPrefix)
			.append(" (removed afterwards)\n\n");
		tables(out, results);

		out.append("\nMemory per client after the steady run (MEMORY USAGE, Redis ").append(version).append("):\n\n");
		out.append("| algorithm | keys | bytes |\n|---|---|---|\n");
		for (ReferenceComparison.SteadyRow row : results.steady()) {
			out.append(String.format(Locale.ROOT, "| %s | %d | %d |%n", name(row.algorithm()), row.memory().keys(),
					row.memory().bytes()));
		}
		return out.toString();
	}

	/**
	 * The report of a run on the in-memory store ({@code ratelimit.store=in-memory}): the same tables of admitted
	 * requests, and no memory table, there being no Redis to measure.
	 */
	static String formatInMemory(ReferenceComparison.Results results) {
		StringBuilder out = header(new StringBuilder());
		out.append("In-memory store (ratelimit.store=in-memory): the limiter counts in this process's memory,")
			.append(" no Redis is used\n\n");
		tables(out, results);
		out.append('\n').append(IN_MEMORY_MEMORY);
		return out.toString();
	}

	private static StringBuilder header(StringBuilder out) {
		out.append("Reference results of docs/ALGORITHMS.md, through the application's RateLimiter\n");
		out.append("Limit ").append(ReferenceComparison.LIMIT).append(" per 1 s (token bucket: capacity ")
			.append(ReferenceComparison.LIMIT).append(", ").append(ReferenceComparison.LIMIT)
			.append(" per second), cost 1, explicit time, T0 = ").append(ReferenceComparison.T0).append('\n');
		return out;
	}

	/** The two tables of admitted requests. */
	private static void tables(StringBuilder out, ReferenceComparison.Results results) {

		out.append("Boundary burst: 15 requests at T0 + 990, then 15 at T0 + 1010, one client.\n\n");
		out.append("| algorithm | admitted at 0.990 s | admitted at 1.010 s | total |\n|---|---|---|---|\n");
		for (ReferenceComparison.BurstRow row : results.burst()) {
			out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |%n", name(row.algorithm()), row.atFirst(),
					row.atSecond(), row.total()));
		}

		out.append("\nSteady overload: ").append(results.requests())
			.append(" requests at T0 + offset for the offsets (ms) in ").append(ReferenceComparison.FIXTURE)
			.append(".\n\"Most in any 1 s span\" slides a window [s, s + 1000) over the admitted timestamps")
			.append(" for s = T0, T0 + 5, ..., T0 + 8995.\n\n");
		out.append("| algorithm | admitted of ").append(results.requests())
			.append(" | most in any 1 s span |\n|---|---|---|\n");
		for (ReferenceComparison.SteadyRow row : results.steady()) {
			out.append(String.format(Locale.ROOT, "| %s | %d | %d |%n", name(row.algorithm()), row.admitted(),
					row.mostInOneSecond()));
		}
	}

	/** "fixed window", "sliding window counter": the spec's names. */
	static String name(Algorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', ' ');
	}

}
