package dev.ratelimit.spring;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The starter's packages import one way: auto-configuration → runtime (web, method calls, enforcement, limits,
 * Redis clients, the endpoint) → the API and the core, with no cycle (docs/ARCHITECTURE.md).
 */
class ArchitectureTests {

	private static final JavaClasses STARTER = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.ratelimit.spring");

	@Test
	void packagesHaveNoCycle() {
		slices().matching("dev.ratelimit.spring.(**)").should().beFreeOfCycles().check(STARTER);
	}

	@Test
	void onlyAutoConfigurationImportsAutoConfiguration() {
		noClasses().that()
			.resideOutsideOfPackage("dev.ratelimit.spring.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.spring.autoconfigure..")
			.check(STARTER);
	}

	@Test
	void theApiImportsNoOtherPackageOfTheStarter() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.spring")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.spring.(*)..")
			.check(STARTER);
	}

	@Test
	void limitsAndEnforcementKnowNoStack() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.spring.limits..", "dev.ratelimit.spring.enforce..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.spring.web..", "dev.ratelimit.spring.aop..",
					"dev.ratelimit.spring.actuate..", "dev.ratelimit.spring.redis..")
			.check(STARTER);
	}

	@Test
	void limitsDoNotEnforce() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.spring.limits..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.spring.enforce..")
			.check(STARTER);
	}

	/** springdoc-openapi is optional: only the package loaded where it is present may use it. */
	@Test
	void onlyTheOpenApiPackageKnowsSpringDoc() {
		noClasses().that()
			.resideOutsideOfPackage("dev.ratelimit.spring.openapi..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springdoc..", "io.swagger..")
			.check(STARTER);
	}

	@Test
	void methodCallsKnowNoWebStack() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.spring.aop..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.spring.web..")
			.check(STARTER);
	}

}
