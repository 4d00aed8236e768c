package dev.ratelimit.dropin.host;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An ordinary Spring MVC application with Redis, security and actuator, as a team would write it before it heard of
 * the starter: an endpoint ({@link LimitedController}), a security filter chain ({@link HostSecurity}) and, when run
 * with {@code --drop-in.report=<file>}, a report of what it owns ({@link OwnershipReport}).
 *
 * <p>
 * For the checks that run it as a process, two arguments bound its life, read before Spring starts so that they
 * hold even when start-up hangs: {@code --drop-in.exit-when-stdin-closes=true} stops it when its standard input
 * reaches its end (the test closes the pipe, or the test JVM dies), and {@code --drop-in.max-lifetime-seconds=N}
 * stops it after N seconds whatever happens (exit code 3).
 */
@SpringBootApplication
public class HostApplication {

	private static final AtomicReference<@Nullable ConfigurableApplicationContext> context = new AtomicReference<>();

	public static void main(String[] args) {
		run(HostApplication.class, args);
	}

	/**
	 * Runs {@code application} as {@link #main(String[])} runs this one, with the same two arguments bounding its
	 * life; for the other host applications of the checks ({@code webflux-host-app}).
	 */
	public static void run(Class<?> application, String[] args) {
		if (Arrays.asList(args).contains("--drop-in.exit-when-stdin-closes=true")) {
			daemon("drop-in-stdin-watch", () -> {
				awaitEndOfInput(System.in);
				ConfigurableApplicationContext running = context.get();
				System.exit((running != null) ? SpringApplication.exit(running) : 2);
			});
		}
		Arrays.stream(args)
			.filter((arg) -> arg.startsWith("--drop-in.max-lifetime-seconds="))
			.map((arg) -> Long.parseLong(arg.substring(arg.indexOf('=') + 1)))
			.findFirst()
			.ifPresent((seconds) -> daemon("drop-in-max-lifetime", () -> {
				try {
					Thread.sleep(seconds * 1000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				System.err.println("drop-in: still running after " + seconds + " s, exiting");
				System.exit(3);
			}));
		context.set(SpringApplication.run(application, args));
	}

	private static void awaitEndOfInput(InputStream in) {
		byte[] buffer = new byte[256];
		try {
			while (in.read(buffer) >= 0) {
				// the test writes nothing; anything written is ignored
			}
		}
		catch (IOException ex) {
			// a broken pipe is an end too
		}
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

}
