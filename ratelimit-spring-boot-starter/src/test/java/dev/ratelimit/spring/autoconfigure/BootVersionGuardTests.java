package dev.ratelimit.spring.autoconfigure;

import java.util.List;

import dev.ratelimit.spring.autoconfigure.BootVersionGuard.UnsupportedSpringBootException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link BootVersionGuard}: which Spring Boot versions stop the application, with which sentence. That it runs on a
 * real Spring Boot 3 application is checked by {@code BootThreeIT} in {@code ratelimit-drop-in-tests}.
 */
class BootVersionGuardTests {

	@ParameterizedTest
	@ValueSource(strings = { "3.5.7", "3.0.0", "3.5.0-SNAPSHOT", "3.4.0-M1", "2.7.18", "1.5.22.RELEASE", "3" })
	void springBootBelow4IsUnsupported(String version) {
		assertThat(BootVersionGuard.isUnsupported(version)).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "4.0.7", "4.0.0", "4.0.0-M1", "4.1.2", "4.1.0-SNAPSHOT", "4.2.0", "5.0.0", " 4.0.7 " })
	void springBoot4AndLaterPasses(String version) {
		assertThat(BootVersionGuard.isUnsupported(version)).isFalse();
		assertThatNoException().isThrownBy(() -> BootVersionGuard.check(version, "0.1.0-SNAPSHOT"));
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", " ", "unknown", "${project.version}", "v3.5.7", "3x", ".3.5", "99999999999.0" })
	void anUnknownOrUnparseableVersionPasses(String version) {
		assertThat(BootVersionGuard.isUnsupported(version)).isFalse();
		assertThatNoException().isThrownBy(() -> BootVersionGuard.check(version, "0.1.0-SNAPSHOT"));
	}

	@Test
	void onSpringBoot3TheApplicationStopsWithOneSentenceAndWhatToDo() {
		assertThatExceptionOfType(UnsupportedSpringBootException.class)
			.isThrownBy(() -> BootVersionGuard.check("3.5.7", "0.1.0-SNAPSHOT"))
			.satisfies((ex) -> {
				assertThat(ex.description()).isEqualTo("ratelimit-spring-boot-starter 0.1.0-SNAPSHOT needs Spring Boot"
						+ " 4.0.x or 4.1.x; this application runs Spring Boot 3.5.7.");
				assertThat(ex.action()).isEqualTo("Upgrade Spring Boot to 4.0.x or 4.1.x, or remove"
						+ " ratelimit-spring-boot-starter from the application's dependencies.");
				assertThat(ex.getMessage()).isEqualTo(ex.description() + " " + ex.action());
			});
	}

	@Test
	void withoutTheStartersVersionTheSentenceLeavesItOut() {
		assertThat(BootVersionGuard.description("3.5.7", null)).isEqualTo(
				"ratelimit-spring-boot-starter needs Spring Boot 4.0.x or 4.1.x; this application runs Spring Boot 3.5.7.");
		assertThat(BootVersionGuard.description("3.5.7", " ")).isEqualTo(BootVersionGuard.description("3.5.7", null));
	}

	@Test
	void theFailureAnalysisIsTheSentenceAndTheAction() {
		UnsupportedSpringBootException guard = new UnsupportedSpringBootException("the description", "the action");
		FailureAnalysis analysis = new BootVersionGuard.Analyzer()
			.analyze(new IllegalStateException("wrapped", guard));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo("the description");
		assertThat(analysis.getAction()).isEqualTo("the action");
		assertThat(analysis.getCause()).isSameAs(guard);
		assertThat(new BootVersionGuard.Analyzer().analyze(new IllegalStateException("another failure"))).isNull();
	}

	@Test
	void theBuildsSpringBootPassesAndTheContextIsLeftAlone() {
		assertThat(SpringBootVersion.getVersion()).as("the Spring Boot of this build, from its jar").startsWith("4.");
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			new BootVersionGuard().initialize(context);
			assertThat(context.getBeanDefinitionNames()).isEmpty();
			assertThat(context.getBeanFactoryPostProcessors()).isEmpty();
			assertThat(context.isActive()).isFalse();
		}
	}

	@Test
	void springFactoriesRegistersTheGuardFirstAndItsAnalyzer() {
		SpringFactoriesLoader loader = SpringFactoriesLoader.forDefaultResourceLocation();
		List<ApplicationContextInitializer> initializers = loader.load(ApplicationContextInitializer.class);
		assertThat(initializers).hasAtLeastOneElementOfType(BootVersionGuard.class);
		assertThat(initializers.get(0)).as("sorted by order, the guard first").isInstanceOf(BootVersionGuard.class);
		// Some of Boot's own analyzers take constructor arguments that only Boot supplies: those are skipped here.
		List<FailureAnalyzer> analyzers = loader.load(FailureAnalyzer.class,
				SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {
				}));
		assertThat(analyzers).hasAtLeastOneElementOfType(BootVersionGuard.Analyzer.class);
	}

}
