package dev.ratelimit.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.ratelimit.core.LuaScript;
import dev.ratelimit.core.ScriptExecutor;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The limiter's {@link ScriptExecutor} on a Jedis client of its own, with its own pool of connections.
 *
 * <p>
 * Jedis blocks the calling thread for as long as a command takes, so {@link #executeAsync} runs each call on one of
 * the limiter's threads (one per pooled connection) and lets the request wait only as long as its deadline, which
 * this executor judges ({@link FairDeadlines}: the time a call waits for one of these threads in a busy application
 * is not Redis's). A call that waited for a thread longer than any deadline waits ({@link FairDeadlines#BACKSTOP}
 * timeouts) is not sent at all: its caller has given up.
 *
 * <p>
 * After Redis restarts or fails over, every idle pooled connection is dead, and each fails the first call that
 * borrows it, at once. Such a call is tried again, up to the pool's size plus one, so limiting resumes with the first
 * request. Timeouts are never retried. A connection closed by a live server after it ran the script (rare:
 * {@code CLIENT KILL}) makes the retry charge the request twice; that errs on the side of limiting.
 */
public final class PooledJedisScriptExecutor
		implements ScriptExecutor, Timeouts.Judged, FairDeadlines.Progress, Connectable, AutoCloseable {

	private final Supplier<UnifiedJedis> client;

	private final List<LuaScript> preloaded;

	private volatile @Nullable UnifiedJedis jedis;

	private volatile @Nullable JedisScriptExecutor delegate;

	private final int attempts;

	private final ExecutorService threads;

	private final long notSentAfterNanos;

	/** What Redis has done with the calls sent on the limiter's threads. */
	private final CallProgress progress = new CallProgress();

	private final ScheduledThreadPoolExecutor timer;

	private final FairDeadlines deadlines;

	/**
	 * Starts its threads and, on one of them, opens a first connection and loads {@code preloaded}; it does not wait
	 * for them.
	 * @param client creates the client ({@code JedisPooled}, {@code JedisSentineled}, {@code JedisCluster}), which this
	 * executor owns and closes; called on the limiter's threads until it succeeds, since Jedis' Sentinel and Cluster
	 * clients ask the servers as they are created, and a Redis that is down must not stop the application
	 * @param poolSize the client's pool size: as many threads send the calls, and a call finding a closed connection is
	 * sent at most {@code poolSize + 1} times
	 * @param timeout the client's socket timeout, the base of the deadlines ({@link FairDeadlines}); a call that waited
	 * {@link FairDeadlines#BACKSTOP} timeouts for a thread is not sent
	 * @param preloaded scripts loaded on the first connection ({@code SCRIPT LOAD}); may be empty
	 */
	public PooledJedisScriptExecutor(Supplier<UnifiedJedis> client, int poolSize, Duration timeout,
			List<LuaScript> preloaded) {
		this.client = client;
		this.preloaded = List.copyOf(preloaded);
		this.notSentAfterNanos = timeout.toNanos() * FairDeadlines.BACKSTOP;
		this.timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "ratelimit-jedis-deadlines");
			thread.setDaemon(true);
			return thread;
		});
		this.deadlines = new FairDeadlines((task, delayNanos) -> {
			ScheduledFuture<?> scheduled = this.timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
			return () -> scheduled.cancel(false);
		}, this, timeout);
		this.attempts = poolSize + 1;
		AtomicInteger count = new AtomicInteger();
		ThreadPoolExecutor executor = new ThreadPoolExecutor(poolSize, poolSize, 60, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "ratelimit-jedis-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		executor.allowCoreThreadTimeOut(true);
		this.threads = executor;
	}

	/**
	 * Opens a first connection and fills the script cache before the first request needs them, on one of the
	 * limiter's threads (Jedis' Sentinel and Cluster clients ask the servers as they are created).
	 * @return completes when done; a Redis that is down, or a cluster (no single node to load on), does not fail it:
	 * the first call loads the script instead
	 */
	@Override
	@SuppressWarnings("NullAway") // delegate() sets this.jedis; a disconnect() meanwhile fails the load, caught below
	public CompletableFuture<Void> connect() {
		try {
			return CompletableFuture.runAsync(() -> this.preloaded.forEach((script) -> {
				try {
					delegate();
					this.jedis.scriptLoad(script.source());
				}
				catch (RuntimeException ex) {
					// Redis down at startup, or a cluster: the first call loads it instead.
				}
			}), this.threads);
		}
		catch (RuntimeException ex) {
			// the executor is closed
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** Closes the pool's connections (the application stops); a call after this opens the pool again. */
	@Override
	public synchronized void disconnect() {
		UnifiedJedis open = this.jedis;
		this.delegate = null;
		this.jedis = null;
		if (open != null) {
			open.close();
		}
	}

	/**
	 * Runs {@code script} on the calling thread, sending it again when its connection was found closed.
	 * @throws RuntimeException Jedis' exception: {@code JedisConnectionException} when Redis cannot be reached or
	 * times out, {@code JedisDataException} when it answers an error
	 */
	@Override
	public List<Long> execute(LuaScript script, List<String> keys, List<String> args) {
		JedisScriptExecutor delegate = delegate();
		for (int attempt = 1;; attempt++) {
			try {
				return delegate.execute(script, keys, args);
			}
			catch (JedisConnectionException ex) {
				if (attempt >= this.attempts || !JedisScriptExecutor.closedConnection(ex)) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Runs {@code script} as {@link #execute} does, on one of this executor's threads.
	 * @return the reply, or a stage failed with Jedis' exception, or with a {@code JedisConnectionException} when no
	 * thread was free within {@link FairDeadlines#BACKSTOP} timeouts (not sent), or with a
	 * {@code RejectedExecutionException} once closed
	 */
	@Override
	public CompletionStage<List<Long>> executeAsync(LuaScript script, List<String> keys, List<String> args) {
		CompletableFuture<List<Long>> result = new CompletableFuture<>();
		long submitted = System.nanoTime();
		try {
			this.threads.execute(() -> {
				if (System.nanoTime() - submitted > this.notSentAfterNanos) {
					result.completeExceptionally(new JedisConnectionException(
							"Not sent: no connection was free within " + FairDeadlines.BACKSTOP + " x ratelimit.redis.timeout"));
					return;
				}
				CallProgress.Call call = this.progress.sent();
				try {
					List<Long> reply = execute(script, keys, args);
					this.progress.answered(call);
					result.complete(reply);
				}
				catch (RuntimeException ex) {
					if (ex instanceof JedisConnectionException) {
						// timed out or lost its connection
						this.progress.endedUnanswered(call);
					}
					else {
						// Redis answered, with an error
						this.progress.answered(call);
					}
					result.completeExceptionally(ex);
				}
			});
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
		return result;
	}

	/** The requests' deadlines, judged with what Redis does with the calls ({@link FairDeadlines}). */
	@Override
	public Timeouts deadlines() {
		return this.deadlines;
	}

	@Override
	public @Nullable Long oldestUnansweredSentAt() {
		return this.progress.oldestUnansweredSentAt();
	}

	@Override
	public long lastAnsweredAt() {
		return this.progress.lastAnsweredAt();
	}

	private JedisScriptExecutor delegate() {
		JedisScriptExecutor delegate = this.delegate;
		if (delegate == null) {
			synchronized (this) {
				if (this.delegate == null) {
					this.jedis = this.client.get();
					this.delegate = new JedisScriptExecutor(this.jedis);
				}
				delegate = this.delegate;
			}
		}
		return delegate;
	}

	/** Stops the threads (calls under way fail) and closes the client. */
	@Override
	public void close() {
		this.threads.shutdownNow();
		this.timer.shutdownNow();
		synchronized (this) {
			if (this.jedis != null) {
				this.jedis.close();
			}
		}
	}

}
