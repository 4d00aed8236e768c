package dev.ratelimit.benchmark.http;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.ratelimit.spring.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/**
 * A partner API's client for {@link WaitedCalls}: 100 calls per second for all callers of one run together (the key
 * is the run), each algorithm on a limit of its own, waited for blocking, as a {@code CompletionStage} and as a
 * {@code Mono}; a denied call waits for a permit up to 10 s. A call records when it ran (a {@code Mono} when it is
 * subscribed, after its permit).
 */
@Service
public class Partner {

	@RateLimited(name = "waited-tb", algorithm = "token-bucket", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public void tokenBucket(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
	}

	@RateLimited(name = "waited-tb", algorithm = "token-bucket", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public CompletionStage<Void> tokenBucketStage(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
		return CompletableFuture.completedFuture(null);
	}

	@RateLimited(name = "waited-tb", algorithm = "token-bucket", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public Mono<Void> tokenBucketMono(String run, List<Long> arrivals) {
		return Mono.fromRunnable(() -> arrivals.add(System.nanoTime()));
	}

	@RateLimited(name = "waited-fw", algorithm = "fixed-window", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public void fixedWindow(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
	}

	@RateLimited(name = "waited-fw", algorithm = "fixed-window", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public CompletionStage<Void> fixedWindowStage(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
		return CompletableFuture.completedFuture(null);
	}

	@RateLimited(name = "waited-fw", algorithm = "fixed-window", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public Mono<Void> fixedWindowMono(String run, List<Long> arrivals) {
		return Mono.fromRunnable(() -> arrivals.add(System.nanoTime()));
	}

	@RateLimited(name = "waited-swc", algorithm = "sliding-window-counter", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public void slidingWindowCounter(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
	}

	@RateLimited(name = "waited-swc", algorithm = "sliding-window-counter", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public CompletionStage<Void> slidingWindowCounterStage(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
		return CompletableFuture.completedFuture(null);
	}

	@RateLimited(name = "waited-swc", algorithm = "sliding-window-counter", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public Mono<Void> slidingWindowCounterMono(String run, List<Long> arrivals) {
		return Mono.fromRunnable(() -> arrivals.add(System.nanoTime()));
	}

	@RateLimited(name = "waited-sl", algorithm = "sliding-log", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public void slidingLog(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
	}

	@RateLimited(name = "waited-sl", algorithm = "sliding-log", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public CompletionStage<Void> slidingLogStage(String run, List<Long> arrivals) {
		arrivals.add(System.nanoTime());
		return CompletableFuture.completedFuture(null);
	}

	@RateLimited(name = "waited-sl", algorithm = "sliding-log", limit = WaitedCalls.LIMIT, window = "1s",
			key = "#run", maxWait = "10s")
	public Mono<Void> slidingLogMono(String run, List<Long> arrivals) {
		return Mono.fromRunnable(() -> arrivals.add(System.nanoTime()));
	}

}
