package dev.ratelimit.dropin;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The run-time class path of one host module, as Maven resolved it in that module's build (see the pom of
 * {@code ratelimit-drop-in-tests}): {@code target/host-classpath.txt} ({@code dependency:build-classpath}, what
 * {@code java -cp} gets) and {@code target/host-dependencies.txt} ({@code dependency:list}, the same artifacts with
 * their coordinates).
 */
final class HostClassPath {

	/**
	 * A line of {@code dependency:list} with absolute file names:
	 * {@code group:artifact:type[:classifier]:version:scope:/path/to/file.jar[ -- module name]}.
	 */
	private static final Pattern LISTED = Pattern.compile(
			"^\\s*([^:\\s]+):([^:\\s]+):([^:\\s]+)(?::([^:\\s]+))?:([^:\\s]+):(compile|runtime|provided|system|test):(.+?)(?: -- module .*)?$");

	/** An artifact: {@code group:artifact[:classifier]}. */
	record Artifact(String key, String version, Path file) {

		@Override
		public String toString() {
			return this.key + ":" + this.version;
		}

	}

	private final String host;

	private final String classPath;

	private final Map<String, Artifact> artifacts;

	private HostClassPath(String host, String classPath, Map<String, Artifact> artifacts) {
		this.host = host;
		this.classPath = classPath;
		this.artifacts = artifacts;
	}

	/** Reads what the build of the host module {@code host} (a folder of ratelimit-drop-in-tests) wrote. */
	static HostClassPath of(String host) {
		Path target = hostsDirectory().resolve(host).resolve("target");
		Path classPathFile = target.resolve("host-classpath.txt");
		Path listFile = target.resolve("host-dependencies.txt");
		for (Path file : List.of(classPathFile, listFile)) {
			if (!Files.isRegularFile(file)) {
				throw new IllegalStateException(file + " is missing: the host module " + host
						+ " writes it in 'package'; run the checks with './mvnw -B verify' (or with"
						+ " '-pl ratelimit-drop-in-tests/checks -am verify')");
			}
		}
		try {
			String classPath = Files.readString(classPathFile).trim();
			Map<String, Artifact> artifacts = new LinkedHashMap<>();
			for (String line : Files.readAllLines(listFile)) {
				Matcher matcher = LISTED.matcher(line);
				if (matcher.matches()) {
					String key = matcher.group(1) + ":" + matcher.group(2)
							+ ((matcher.group(4) != null) ? ":" + matcher.group(4) : "");
					artifacts.put(key, new Artifact(key, matcher.group(5), Path.of(matcher.group(7).trim())));
				}
			}
			if (artifacts.isEmpty()) {
				throw new IllegalStateException("No artifact in " + listFile + ":\n" + Files.readString(listFile));
			}
			return new HostClassPath(host, classPath, artifacts);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Path hostsDirectory() {
		return Path.of(System.getProperty("dropin.hosts", "..")).toAbsolutePath().normalize();
	}

	String host() {
		return this.host;
	}

	/** For {@code java -cp}. */
	String classPath() {
		return this.classPath;
	}

	/** The class path's entries, as files. */
	Set<Path> entries() {
		Set<Path> entries = new LinkedHashSet<>();
		for (String entry : this.classPath.split(Pattern.quote(File.pathSeparator))) {
			if (!entry.isBlank()) {
				entries.add(Path.of(entry).toAbsolutePath().normalize());
			}
		}
		return entries;
	}

	/** By {@code group:artifact[:classifier]}, in resolution order. */
	Map<String, Artifact> artifacts() {
		return this.artifacts;
	}

	/** The files of {@link #artifacts()}. */
	Set<Path> artifactFiles() {
		Set<Path> files = new LinkedHashSet<>();
		this.artifacts.values().forEach((artifact) -> files.add(artifact.file().toAbsolutePath().normalize()));
		return files;
	}

	@Override
	public String toString() {
		return this.host + " " + Arrays.toString(this.artifacts.keySet().toArray());
	}

}
