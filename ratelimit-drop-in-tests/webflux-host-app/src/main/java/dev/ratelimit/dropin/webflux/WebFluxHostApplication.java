package dev.ratelimit.dropin.webflux;

import dev.ratelimit.dropin.host.HostApplication;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An ordinary Spring WebFlux application with reactive Redis, security and actuator, as a team would write it: an
 * endpoint returning a {@code Mono} ({@link LimitedController}), a security web filter chain ({@link HostSecurity})
 * and, when run with {@code --drop-in.report=<file>}, a report of what it owns ({@link ReactiveOwnershipReport},
 * host-app's report and the reactive side).
 *
 * <p>
 * Its package is not host-app's, so host-app's Spring MVC classes, on the class path for the report code, are not
 * scanned. It is run as host-app's application is ({@link HostApplication#run(Class, String[])}): the arguments
 * {@code --drop-in.exit-when-stdin-closes=true} and {@code --drop-in.max-lifetime-seconds=N} bound its life.
 */
@SpringBootApplication
public class WebFluxHostApplication {

	public static void main(String[] args) {
		HostApplication.run(WebFluxHostApplication.class, args);
	}

}
