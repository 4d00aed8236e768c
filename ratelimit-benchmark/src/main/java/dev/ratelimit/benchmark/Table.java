package dev.ratelimit.benchmark;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** What the benchmarks' tables share. */
public final class Table {

	private Table() {
	}

	/** The median of one field over the rounds. */
	public static <T> double median(List<T> rounds, ToDoubleFunction<T> field) {
		double[] values = rounds.stream().mapToDouble(field).sorted().toArray();
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
	}

}
