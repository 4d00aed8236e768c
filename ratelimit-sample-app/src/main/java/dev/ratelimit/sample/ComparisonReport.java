package dev.ratelimit.sample;

import java.util.Locale;

import dev.ratelimit.core.Algorithm;

/**
 * The comparison's results in the layout of {@code docs/ALGORITHMS.md}: the same Markdown tables, same columns and
 * algorithm names, so the output can be set beside the spec (and parsed by the end-to-end test).
 */
final class ComparisonReport {

	private ComparisonReport() {
	}

	/**
	 * @param results what the comparison measured
	 * @param redis which Redis was used, for the header
	 * @param version its {@code redis_version}
	 * @param keyPrefix the run's key prefix
	 */
	static String format(ReferenceComparison.Results results, String redis, String version, String keyPrefix) {
		StringBuilder out = new StringBuilder();
		out.append("Reference results of docs/ALGORITHMS.md, through the application's RateLimiter\n");
		out.append("Limit ").append(ReferenceComparison.LIMIT).append(" per 1 s (token bucket: capacity ")
			.append(ReferenceComparison.LIMIT).append(", ").append(ReferenceComparison.LIMIT)
			.append(" per second), cost 1, explicit time, T0 = ").append(ReferenceComparison.T0).append('\n');
		out.append("Redis ").append(version).append(" at ").append(redis).append(", keys under ").append(keyPrefix)
			.append(" (removed afterwards)\n\n");

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

		out.append("\nMemory per client after the steady run (MEMORY USAGE, Redis ").append(version).append("):\n\n");
		out.append("| algorithm | keys | bytes |\n|---|---|---|\n");
		for (ReferenceComparison.SteadyRow row : results.steady()) {
			out.append(String.format(Locale.ROOT, "| %s | %d | %d |%n", name(row.algorithm()), row.memory().keys(),
					row.memory().bytes()));
		}
		return out.toString();
	}

	/** "fixed window", "sliding window counter": the spec's names. */
	static String name(Algorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', ' ');
	}

}
