package dev.ratelimit.benchmark;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The command line's {@code --name=value} options, each checked against the names the benchmark knows. */
public final class Options {

	private final Map<String, String> values = new LinkedHashMap<>();

	/** @throws IllegalArgumentException for an argument that is not {@code --name=value} with a known name */
	public Options(List<String> args, List<String> known) {
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				throw new IllegalArgumentException("arguments are --name=value, such as --threads=16, but got " + arg);
			}
			String name = arg.substring(2, arg.indexOf('='));
			if (!known.contains(name)) {
				throw new IllegalArgumentException("unknown argument " + arg + "; known: --" + String.join(", --", known));
			}
			this.values.put(name, arg.substring(arg.indexOf('=') + 1));
		}
	}

	public String text(String name, String defaultValue) {
		return this.values.getOrDefault(name, defaultValue);
	}

	/** @throws IllegalArgumentException if the value is not a whole number from {@code least} to {@code most} */
	public int number(String name, int defaultValue, int least, int most) {
		if (!this.values.containsKey(name)) {
			return defaultValue;
		}
		int value;
		try {
			value = Integer.parseInt(this.values.get(name));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--" + name + " must be a whole number, but was " + this.values.get(name));
		}
		if (value < least || value > most) {
			throw new IllegalArgumentException("--" + name + " must be from " + least + " to " + most + ", but was " + value);
		}
		return value;
	}

}
