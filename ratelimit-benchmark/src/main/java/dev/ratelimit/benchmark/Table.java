package dev.ratelimit.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/** What the benchmarks' tables share: interleaved rounds, and medians over them. */
public final class Table {

	private Table() {
	}

	/** One run of a scenario; a warm-up run's result is dropped. */
	public interface Measure<S, M> {

		M run(S scenario, boolean warmUp) throws Exception;

	}

	/**
	 * Measures every scenario once per round, one after the other, so that a machine getting busier slows all of them
	 * alike; with {@code warmUp}, a warm-up run comes before each scenario's first. Prints a line per round.
	 * @return the measurements by scenario name, in the scenarios' order
	 */
	public static <S, M> Map<String, List<M>> interleaved(List<S> scenarios, Function<S, String> name, int rounds,
			boolean warmUp, String label, Measure<S, M> measure) throws Exception {
		Map<String, List<M>> results = new LinkedHashMap<>();
		for (int round = 1; round <= rounds; round++) {
			for (S scenario : scenarios) {
				if (round == 1 && warmUp) {
					measure.run(scenario, true);
				}
				results.computeIfAbsent(name.apply(scenario), (key) -> new ArrayList<>()).add(measure.run(scenario, false));
			}
			System.out.printf(Locale.ROOT, "%sround %d of %d done%n", label, round, rounds);
		}
		return results;
	}

	/** The median of one field over the rounds. */
	public static <T> double median(List<T> rounds, ToDoubleFunction<T> field) {
		double[] values = rounds.stream().mapToDouble(field).sorted().toArray();
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
	}

}
