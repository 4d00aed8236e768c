package dev.ratelimit.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails a test in which anything blocked a non-blocking thread (Reactor Netty's event loops, Reactor's parallel
 * scheduler, the limiter's Lettuce I/O threads): BlockHound, installed once per test JVM, records each blocking call
 * and throws, and this extension also checks the record after each test, because an error thrown on an event loop may
 * surface only as a closed connection. Needs {@code -XX:+AllowRedefinitionToAddDeleteMethods} (the starter's
 * surefire {@code argLine}).
 */
public final class NoBlocking implements BeforeAllCallback, AfterEachCallback {

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
			.blockingMethodCallback((method) -> {
				blockingCalls.add(method + " on " + Thread.currentThread().getName());
				throw new BlockingOperationError(method);
			}));
		installed = true;
	}

	/** Forgets the blocking calls a test made on purpose: those of methods whose name starts with {@code method}. */
	static void forget(String method) {
		blockingCalls.removeIf((call) -> call.startsWith(method));
	}

	@Override
	public void afterEach(ExtensionContext context) {
		List<String> calls = List.copyOf(blockingCalls);
		blockingCalls.clear();
		assertThat(calls).as("blocking calls on non-blocking threads").isEmpty();
	}

}
