package dev.ratelimit.dropin;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One host application as a process of its own: {@code java -cp <the host's class path>
 * dev.ratelimit.dropin.host.HostApplication}, started from an empty working directory, with an environment cleared
 * of anything that could configure Spring, Redis or the JVM, so that only its class path and its arguments decide
 * what it does. Nothing of the test's class path reaches it.
 *
 * <p>
 * Its output goes to {@code target/drop-in-logs/<name>.log}, quoted in failure messages. It writes its report to
 * {@code target/drop-in-logs/<name>.report.properties}. It stops when its standard input is closed
 * ({@link #close()}); should that fail, it is destroyed; should the test JVM die, the closed pipe stops it too, and
 * it stops by itself after {@link #MAX_LIFETIME} in any case. Every wait is bounded.
 */
final class HostProcess implements AutoCloseable {

	/** Bound of the start-up: generous, because a loaded 2-core machine starts several Spring applications slowly. */
	static final Duration START_UP = Duration.ofSeconds(120);

	/** Bound of the stop, after which the process is destroyed. */
	static final Duration STOP = Duration.ofSeconds(60);

	/** The application exits by itself after this, whatever happens to the test. */
	static final Duration MAX_LIFETIME = Duration.ofMinutes(10);

	private static final String MAIN_CLASS = "dev.ratelimit.dropin.host.HostApplication";

	private final String name;

	private final Process process;

	private final Path log;

	private final Path report;

	private final Thread reaper = new Thread(this::destroy, "drop-in-host-reaper");

	private boolean stopped;

	private Integer exitCode;

	private HostProcess(String name, Process process, Path log, Path report) {
		this.name = name;
		this.process = process;
		this.log = log;
		this.report = report;
		Runtime.getRuntime().addShutdownHook(this.reaper);
	}

	/**
	 * Starts the host application on {@code classPath} with {@code args}, plus the arguments that make it write its
	 * report and bound its life.
	 */
	static HostProcess start(String name, HostClassPath classPath, List<String> args) {
		return start(name, classPath.classPath(), MAIN_CLASS, args);
	}

	/**
	 * As {@link #start(String, HostClassPath, List)}, for an application that is not {@code host-app}'s: its own
	 * {@code mainClass} on {@code classPath}. It gets the same arguments, which such an application may ignore.
	 */
	static HostProcess start(String name, String classPath, String mainClass, List<String> args) {
		return start(name, classPath, mainClass, List.of(), args);
	}

	/**
	 * As {@link #start(String, String, String, List)}, with {@code jvmOptions} (such as
	 * {@code -Dspring.aot.enabled=true}, which Spring reads as a system property only) before the class path.
	 */
	static HostProcess start(String name, String classPath, String mainClass, List<String> jvmOptions,
			List<String> args) {
		try {
			Path logs = Files.createDirectories(Path.of(System.getProperty("dropin.logs", "target/drop-in-logs"))
				.toAbsolutePath());
			Path log = logs.resolve(name + ".log");
			Path report = logs.resolve(name + ".report.properties");
			Files.deleteIfExists(report);
			// Spring Boot reads ./application.properties and ./config/: an empty directory of its own.
			Path workingDirectory = Files.createDirectories(logs.resolve(name + ".cwd"));
			List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
				.toString(),
					// A quicker start on small machines: the processes live for seconds, peak performance does not
					// matter. The same flags for every host.
					"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
			command.addAll(jvmOptions);
			command.addAll(List.of("-cp", classPath, mainClass));
			command.addAll(args);
			command.add("--drop-in.report=" + report);
			command.add("--drop-in.exit-when-stdin-closes=true");
			command.add("--drop-in.max-lifetime-seconds=" + MAX_LIFETIME.toSeconds());
			ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.redirectInput(ProcessBuilder.Redirect.PIPE);
			Map<String, String> environment = builder.environment();
			environment.keySet().removeIf(HostProcess::couldConfigure);
			Files.writeString(logs.resolve(name + ".command.txt"), String.join("\n", command) + "\n");
			return new HostProcess(name, builder.start(), log, report);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + name, ex);
		}
	}

	/** Environment variables that Spring Boot's relaxed binding or the JVM would read. */
	private static boolean couldConfigure(String variable) {
		String upper = variable.toUpperCase(java.util.Locale.ROOT);
		return upper.equals("CLASSPATH") || upper.equals("JAVA_TOOL_OPTIONS") || upper.equals("JDK_JAVA_OPTIONS")
				|| upper.equals("_JAVA_OPTIONS") || upper.equals("REDIS_URL") || upper.startsWith("SPRING_")
				|| upper.startsWith("RATELIMIT_") || upper.startsWith("SERVER_") || upper.startsWith("MANAGEMENT_")
				|| upper.startsWith("LOGGING_") || upper.startsWith("DROP_IN_") || upper.startsWith("DROPIN_");
	}

	/** Waits for the report (bounded by {@link #START_UP}) and reads it. */
	HostReport awaitReport() {
		long deadline = System.nanoTime() + START_UP.toNanos();
		while (!Files.isRegularFile(this.report)) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.name + " exited with " + this.process.exitValue()
						+ " before writing its report:\n" + output());
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(this.name + " wrote no report within " + START_UP + ":\n" + output());
			}
			pause();
		}
		Properties properties = new Properties();
		try (Reader reader = Files.newBufferedReader(this.report, StandardCharsets.UTF_8)) {
			properties.load(reader);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, String> fields = new TreeMap<>();
		properties.forEach((key, value) -> fields.put(key.toString(), value.toString()));
		return new HostReport(this.name, fields);
	}

	/**
	 * Waits for the process to exit by itself (it is not asked to), bounded by {@code bound}.
	 * @return its exit code, or {@code null} if it is still running after {@code bound}
	 */
	Integer awaitExit(Duration bound) {
		try {
			return this.process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS) ? this.process.exitValue() : null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Closes the application's standard input, which stops it, and waits for it (bounded by {@link #STOP});
	 * destroys it if it is still there. Idempotent.
	 * @return its exit code, or {@code null} if it had to be destroyed
	 */
	synchronized Integer stop() {
		if (!this.stopped) {
			this.stopped = true;
			try {
				this.process.getOutputStream().close();
			}
			catch (IOException alreadyClosed) {
				// it has stopped reading
			}
			try {
				if (this.process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
					this.exitCode = this.process.exitValue();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			destroy();
			try {
				Runtime.getRuntime().removeShutdownHook(this.reaper);
			}
			catch (IllegalStateException shuttingDown) {
				// the hook is running
			}
		}
		return this.exitCode;
	}

	@Override
	public void close() {
		stop();
	}

	/** SIGTERM, then SIGKILL, for the process and anything it started. */
	private void destroy() {
		List<ProcessHandle> descendants = this.process.descendants().toList();
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				this.process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
		descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
	}

	String name() {
		return this.name;
	}

	/** Everything the process wrote, so far. */
	String fullOutput() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The last lines the process wrote, for failure messages. */
	String output() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			int from = Math.max(0, lines.size() - 80);
			return "--- " + this.log + ((from > 0) ? " (last 80 lines)" : "") + "\n"
					+ String.join("\n", lines.subList(from, lines.size()));
		}
		catch (IOException ex) {
			return "(no output: " + ex + ")";
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

	private static void pause() {
		try {
			Thread.sleep(100);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
