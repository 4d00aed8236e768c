package dev.ratelimit.spring.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;

/**
 * Stops an application on Spring Boot 3 (or older) that has the starter, at startup, with one sentence naming the
 * Spring Boot versions the starter needs.
 *
 * <p>
 * Why: the starter is compiled against Spring Boot 4, whose auto-configuration lives in other modules and packages
 * than Boot 3's (the starter's auto-configuration refers to {@code org.springframework.boot.data.redis.autoconfigure},
 * for one). On Boot 3 the first of its classes that Boot reads fails with a {@code NoClassDefFoundError} or
 * class-not-found on a Boot 4 class, which says nothing of the cause. This guard runs before that: it is an
 * {@link ApplicationContextInitializer} registered in {@code META-INF/spring.factories}, which Spring Boot 3 and 4
 * both apply to the context before refreshing it, so before any auto-configuration class is loaded. It uses only what
 * Boot 3 and Boot 4 both have, in the same packages and under the same {@code spring.factories} keys:
 * {@link SpringBootVersion}, {@link ApplicationContextInitializer}, {@link Ordered} and the failure analysis of
 * {@code org.springframework.boot.diagnostics} ({@link Analyzer}), which prints the sentence as Boot's
 * "APPLICATION FAILED TO START" description and action, without a stack trace.
 *
 * <p>
 * On Spring Boot 4 it does nothing: it registers no bean and changes nothing in the context. A version it cannot
 * read ({@code null} when Boot runs from classes without its jar's manifest, in an IDE say) or cannot parse never
 * stops the application, and neither does a Boot after 4.1 (not tested, but not known to fail either): only a major
 * version below 4 does.
 */
final class BootVersionGuard implements ApplicationContextInitializer<ConfigurableApplicationContext>, Ordered {

	/** The versions the starter is built for and tested on, for the message. */
	static final String SUPPORTED = "4.0.x or 4.1.x";

	/** The first major version of Spring Boot that the starter runs on. */
	private static final int FIRST_SUPPORTED_MAJOR = 4;

	private static final String STARTER = "ratelimit-spring-boot-starter";

	/** A major version: digits, then the end or a {@code .} or {@code -} ({@code 3.5.7}, {@code 4.0.0-M1}). */
	private static final Pattern MAJOR = Pattern.compile("^(\\d{1,9})(?:[.-].*)?$");

	/** First, so that no other initializer runs on a Spring Boot the starter does not support. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		check(SpringBootVersion.getVersion(), BootVersionGuard.class.getPackage().getImplementationVersion());
	}

	/**
	 * Throws {@link UnsupportedSpringBootException} when {@code bootVersion} is a Spring Boot the starter cannot run on.
	 * @param bootVersion {@link SpringBootVersion#getVersion()}, may be {@code null}
	 * @param starterVersion the starter's version from its jar's manifest, may be {@code null}
	 */
	static void check(@Nullable String bootVersion, @Nullable String starterVersion) {
		if (isUnsupported(bootVersion)) {
			throw new UnsupportedSpringBootException(description(bootVersion, starterVersion), action());
		}
	}

	/** Only a Spring Boot whose major version is known and below 4; an unknown or unparseable version passes. */
	static boolean isUnsupported(@Nullable String bootVersion) {
		if (bootVersion == null) {
			return false;
		}
		Matcher matcher = MAJOR.matcher(bootVersion.trim());
		return matcher.matches() && Integer.parseInt(matcher.group(1)) < FIRST_SUPPORTED_MAJOR;
	}

	/** The one sentence: the starter's version (when known), the versions it needs, the application's. */
	static String description(@Nullable String bootVersion, @Nullable String starterVersion) {
		String starter = (starterVersion != null && !starterVersion.isBlank()) ? STARTER + " " + starterVersion.trim()
				: STARTER;
		return starter + " needs Spring Boot " + SUPPORTED + "; this application runs Spring Boot " + bootVersion + ".";
	}

	static String action() {
		return "Upgrade Spring Boot to " + SUPPORTED + ", or remove " + STARTER + " from the application's dependencies.";
	}

	/** Thrown by the guard; its message is the description and the action, for a log without failure analysis. */
	static final class UnsupportedSpringBootException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		private final String description;

		private final String action;

		UnsupportedSpringBootException(String description, String action) {
			super(description + " " + action);
			this.description = description;
			this.action = action;
		}

		String description() {
			return this.description;
		}

		String action() {
			return this.action;
		}

	}

	/**
	 * Turns the guard's exception into Boot's "APPLICATION FAILED TO START" report. Registered in
	 * {@code META-INF/spring.factories} under {@code org.springframework.boot.diagnostics.FailureAnalyzer}: the same
	 * key, interface and package in Spring Boot 3.5 and 4.0. Boot instantiates it only when startup fails.
	 */
	static final class Analyzer extends AbstractFailureAnalyzer<UnsupportedSpringBootException> {

		@Override
		protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootException cause) {
			return new FailureAnalysis(cause.description(), cause.action(), cause);
		}

	}

}
