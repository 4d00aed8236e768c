package dev.ratelimit.dropin.host;

import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import org.springframework.context.ApplicationContext;

/** The reactive health contributors (Lettuce's Redis health is one). Loaded only where Reactor is present. */
final class ReactiveHealth {

	private ReactiveHealth() {
	}

	static void describe(ApplicationContext context, Map<String, String> report) {
		context.getBeanProvider(ReactiveHealthContributorRegistry.class).ifAvailable((registry) -> report.put(
				"health.reactiveContributors",
				registry.stream()
					.map((entry) -> entry.name() + ":" + OwnershipReport.typeName(entry.contributor().getClass()))
					.sorted()
					.collect(Collectors.joining(", "))));
	}

}
