package dev.ratelimit.spring.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails a test in which anything blocked a non-blocking thread (Reactor Netty's event loops, Reactor's parallel
 * scheduler, the limiter's Lettuce I/O threads): BlockHound, installed once per test JVM, records each blocking call
 * with the frames that made it, and this extension fails the test after it if any was recorded. Needs {@code -XX:+AllowRedefinitionToAddDeleteMethods} (the starter's
 * surefire {@code argLine}).
 */
public final class NoBlocking implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {

	private static final List<String> blockingCalls = new CopyOnWriteArrayList<>();

	private static volatile boolean installed;

	@Override
	public void beforeAll(ExtensionContext context) {
		install();
	}

	static synchronized void install() {
		if (installed) {
			return;
		}
		// With the integrations on the class path (Reactor's, Reactor Netty's, Netty's), which say which threads are
		// non-blocking.
		BlockHound.install((builder) -> builder
			// Logging a (rate-limited) WARN from a decision that failed: the console appender writes synchronously,
			// as it does for every framework that logs on an event loop.
			.allowBlockingCallsInside("ch.qos.logback.classic.Logger", "callAppenders")
			// Netty's buffer allocator growing under contention takes a short internal lock (a StampedLock) while
			// Jackson writes a response body; Netty's own integration does not list it yet. Failing there would also
			// leave the JVM-wide allocator's lock queue broken for every later test.
			.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
			// Lettuce's writer lock: every command takes it for a moment, and waits only while another thread
			// dispatches or the connection changes state; Spring Data's reactive Redis takes it the same way.
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			// Lettuce's Redis Cluster client waits on its node-connection setup; only the Cluster tests' clients get
			// there (no WebFlux test uses a Cluster), from connections still closing while a WebFlux test runs.
			.allowBlockingCallsInside("io.lettuce.core.cluster.PooledClusterConnectionProvider$NodeConnectionPostProcessor",
					"lambda$apply$4")
			// Recorded, not thrown: an error thrown inside a lock (the JDK's, Lettuce's) can leave it broken, and
			// every later test would hang instead of this one failing.
			.blockingMethodCallback((method) -> {
				if (!idleWorker()) {
					blockingCalls.add(method + " on " + Thread.currentThread().getName() + where());
				}
			}));
		installed = true;
	}

	/**
	 * Whether this thread is a pool's worker waiting for its next task (Reactor's parallel workers waiting in their
	 * queue's {@code take}, which Reactor's integration allows). A worker that began that wait before BlockHound was
	 * installed (a test class without this extension started Reactor's schedulers first) entered {@code take} before
	 * it was marked as allowed, and its later parks inside the same wait would be reported; they are no blocking call.
	 */
	private static boolean idleWorker() {
		for (StackTraceElement frame : new Throwable().getStackTrace()) {
			if (frame.getClassName().equals("java.util.concurrent.ThreadPoolExecutor")
					&& frame.getMethodName().equals("getTask")) {
				return true;
			}
		}
		return false;
	}

	/** The caller's frames that are not BlockHound's or the JDK's, so that a failure says who blocked. */
	private static String where() {
		StringBuilder frames = new StringBuilder();
		for (StackTraceElement frame : new Throwable().getStackTrace()) {
			String type = frame.getClassName();
			if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("reactor.blockhound.")
					&& !type.startsWith(NoBlocking.class.getName()) && frames.length() < 3000) {
				frames.append("\n\tat ").append(frame);
			}
		}
		return frames.toString();
	}

	/**
	 * Forgets the blocking calls a test made on purpose: those of methods whose name starts with {@code method}.
	 * @return how many there were
	 */
	public static int forget(String method) {
		List<String> calls = blockingCalls.stream().filter((call) -> call.startsWith(method)).toList();
		blockingCalls.removeAll(calls);
		return calls.size();
	}

	/** Only what happens during a test counts: not the clients of a test that ran before, still closing. */
	@Override
	public void beforeEach(ExtensionContext context) {
		blockingCalls.clear();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		List<String> calls = List.copyOf(blockingCalls);
		blockingCalls.clear();
		assertThat(calls).as("blocking calls on non-blocking threads").isEmpty();
	}

}
