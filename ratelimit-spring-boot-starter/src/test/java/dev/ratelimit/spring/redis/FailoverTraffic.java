package dev.ratelimit.spring.redis;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import dev.ratelimit.spring.redis.FailoverApplication.Instance;

/**
 * Requests of one client ({@code X-Client}) to {@code GET /limited} of every instance, sent without pause by
 * {@value #THREADS_PER_INSTANCE} threads per instance, each at most one request per {@link #PACE}, until
 * {@link #close()}; every answer is recorded with its times.
 */
final class FailoverTraffic implements AutoCloseable {

	static final int THREADS_PER_INSTANCE = 2;

	/** The most one thread sends: 50 requests per second, 100 per instance. */
	static final Duration PACE = Duration.ofMillis(20);

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean stopped;

	FailoverTraffic(List<Instance> instances, String client) {
		for (Instance instance : instances) {
			for (int i = 0; i < THREADS_PER_INSTANCE; i++) {
				Thread thread = new Thread(() -> send(instance, client), "traffic-" + instance.name() + "-" + i);
				thread.setDaemon(true);
				this.threads.add(thread);
			}
		}
		this.threads.forEach(Thread::start);
	}

	private void send(Instance instance, String client) {
		while (!this.stopped) {
			long sent = System.nanoTime();
			Answer answer = once(instance, client);
			if (answer == null) {
				return;
			}
			this.answers.add(answer);
			LockSupport.parkNanos(sent + PACE.toNanos() - System.nanoTime());
		}
	}

	/**
	 * One request of {@code client} to {@code instance}, now.
	 * @return its answer, or {@code null} when the thread was interrupted
	 */
	static Answer once(Instance instance, String client) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/limited"))
			.header("X-Client", client)
			.timeout(Duration.ofSeconds(10))
			.GET()
			.build();
		long sent = System.nanoTime();
		try {
			HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
			return new Answer(instance.name(), sent, System.nanoTime(), response.statusCode(),
					response.headers().firstValue("RateLimit").orElse(null),
					response.headers().firstValue("RateLimit-Policy").orElse(null));
		}
		catch (IOException ex) {
			return new Answer(instance.name(), sent, System.nanoTime(), -1, ex.toString(), null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/** The answers so far, in the order they were received. */
	List<Answer> answers() {
		List<Answer> all = new ArrayList<>(this.answers);
		all.sort(Comparator.comparingLong(Answer::received));
		return all;
	}

	/**
	 * Waits until {@code done} holds for the answers so far, checking every few milliseconds.
	 * @throws AssertionError naming {@code what} when it does not within {@code timeout}
	 */
	void await(String what, Predicate<List<Answer>> done, Duration timeout) {
		if (!awaitAtMost(done, timeout)) {
			List<Answer> answers = answers();
			throw new AssertionError("not within " + timeout + ": " + what + "; the last answers: "
					+ answers.subList(Math.max(0, answers.size() - 20), answers.size()));
		}
	}

	/**
	 * Waits until {@code done} holds for the answers so far, checking every few milliseconds, at most
	 * {@code timeout}.
	 * @return whether it holds
	 */
	boolean awaitAtMost(Predicate<List<Answer>> done, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!done.test(answers())) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
		}
		return true;
	}

	@Override
	public void close() {
		this.stopped = true;
		for (Thread thread : this.threads) {
			try {
				thread.join(Duration.ofSeconds(15).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** What a request got. */
	enum Kind {

		/** 429 with Redis's fields: the client is out of budget. */
		DENIED,

		/** 200 with Redis's fields. */
		ADMITTED,

		/** 200 without rate-limit fields: Redis failed, the limit failed open. */
		FAILED_OPEN,

		/** Anything else: a 500, a 503, no answer. */
		OTHER

	}

	/**
	 * One request's answer.
	 * @param instance the instance's name
	 * @param sent {@link System#nanoTime()} when sent
	 * @param received {@link System#nanoTime()} when its answer came
	 * @param status the HTTP status, or -1 when none came
	 * @param rateLimit the {@code RateLimit} field, or the failure when none came
	 * @param policy the {@code RateLimit-Policy} field
	 */
	record Answer(String instance, long sent, long received, int status, String rateLimit, String policy) {

		Kind kind() {
			boolean redisFields = FailoverApplication.POLICY.equals(this.policy) && this.rateLimit != null
					&& this.rateLimit.startsWith("\"" + FailoverApplication.LIMIT_NAME + "\";r=");
			if (this.status == 429 && redisFields && this.rateLimit.contains(";r=0;")) {
				return Kind.DENIED;
			}
			if (this.status == 200 && redisFields) {
				return Kind.ADMITTED;
			}
			if (this.status == 200 && this.rateLimit == null && this.policy == null) {
				return Kind.FAILED_OPEN;
			}
			return Kind.OTHER;
		}

		Duration elapsed() {
			return Duration.ofNanos(this.received - this.sent);
		}

		@Override
		public String toString() {
			return this.instance + " " + kind() + " " + this.status + " in " + elapsed().toMillis() + " ms"
					+ ((kind() == Kind.OTHER) ? " (" + this.rateLimit + ", " + this.policy + ")" : "");
		}

	}

}
