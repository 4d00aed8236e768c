package dev.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary directory of a group of test servers: their logs for failure messages, and its removal. */
final class ServerDirectory {

	private ServerDirectory() {
	}

	/** The output of every {@code *.log} in {@code directory} so far, for a failure message. */
	static String logs(Path directory) {
		StringBuilder logs = new StringBuilder();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path log : files.filter((file) -> file.toString().endsWith(".log")).sorted().toList()) {
				logs.append("\n--- ").append(log.getFileName()).append('\n')
					.append(Files.readString(log, StandardCharsets.UTF_8));
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// best effort
		}
		return logs.toString();
	}

	/** Deletes {@code directory} and everything in it, as far as possible: it is a temporary directory. */
	static void delete(Path directory) {
		try (Stream<Path> files = Files.walk(directory)) {
			for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(file);
			}
		}
		catch (IOException | UncheckedIOException ex) {
			// best effort
		}
	}

}
