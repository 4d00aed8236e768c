package dev.ratelimit.dropin;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * On Spring Boot 3 the starter stops the application at startup with one sentence naming the Spring Boot versions it
 * needs ({@code BootVersionGuard} of the starter), not with a {@code NoClassDefFoundError} on a class of Boot 4.
 *
 * <p>
 * The application is the module {@code lettuce-host-boot-3.5-with-starter}: Boot's own parent at 3.5.7, Spring MVC,
 * Spring Data Redis (Lettuce) and the starter jar of this build, with a main class of its own, compiled against Boot
 * 3.5.7. It runs as a {@code java -cp} process ({@link HostProcess}) on the class path Maven resolved for it plus its
 * own classes. It needs no Redis: it must stop before anything would connect to one.
 */
class BootThreeIT {

	static final String HOST = "lettuce-host-boot-3.5-with-starter";

	static final String MAIN_CLASS = "dev.ratelimit.dropin.boot3.BootThreeApplication";

	@Test
	void onSpringBoot3TheStarterStopsTheApplicationWithOneSentenceNamingTheSupportedVersions() {
		HostClassPath classPath = HostClassPath.of(HOST);
		HostClassPath.Artifact boot = classPath.artifacts().get("org.springframework.boot:spring-boot");
		HostClassPath.Artifact starter = classPath.artifacts().get("dev.ratelimit:ratelimit-spring-boot-starter");
		assertThat(boot).as("%s: the spring-boot jar Maven resolved", HOST).isNotNull();
		assertThat(boot.version()).as("%s: its Spring Boot, which its parent manages", HOST).isEqualTo("3.5.7");
		assertThat(starter).as("%s has the starter", HOST).isNotNull();
		Path ownClasses = HostClassPath.hostsDirectory().resolve(HOST).resolve("target").resolve("classes");
		assertThat(Files.isRegularFile(ownClasses.resolve(MAIN_CLASS.replace('.', '/') + ".class")))
			.as("%s's main class, compiled in %s", HOST, ownClasses)
			.isTrue();

		String sentence = "ratelimit-spring-boot-starter " + starter.version()
				+ " needs Spring Boot 4.0.x or 4.1.x; this application runs Spring Boot " + boot.version() + ".";
		try (HostProcess application = HostProcess.start(HOST, ownClasses + File.pathSeparator + classPath.classPath(),
				MAIN_CLASS, List.of("--server.port=0"))) {
			Integer exitCode = application.awaitExit(HostProcess.START_UP);
			String output = application.fullOutput();
			if (exitCode == null) {
				fail(HOST + " is still running after " + HostProcess.START_UP + ": on Spring Boot 3.5.7 the starter should stop it at"
						+ " startup\n" + application.output());
			}
			assertThat(exitCode).as("%s's exit code\n%s", HOST, application.output()).isNotZero();
			int at = output.indexOf(sentence);
			if (at < 0) {
				fail(HOST + "'s output does not say \"" + sentence + "\"\n" + application.output());
			}
			assertThat(output.indexOf(sentence, at + 1)).as("the sentence once, no stack trace repeating it\n%s",
					application.output())
				.isNegative();
			String before = output.substring(0, at);
			assertThat(before).as("%s's output before the sentence\n%s", HOST, application.output())
				.doesNotContain("NoClassDefFoundError")
				.doesNotContain("ClassNotFoundException")
				.contains("APPLICATION FAILED TO START");
			assertThat(output).as("%s's output: no class of Boot 4 was looked for at all\n%s", HOST,
					application.output())
				.doesNotContain("NoClassDefFoundError")
				.doesNotContain("ClassNotFoundException");
			assertThat(output.lines().filter((line) -> line.startsWith("\tat ")))
				.as("%s's output: no stack trace\n%s", HOST, application.output())
				.isEmpty();
		}
	}

}
