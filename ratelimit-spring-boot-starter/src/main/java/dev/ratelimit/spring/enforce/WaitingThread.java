package dev.ratelimit.spring.enforce;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs what follows Redis' answer on the thread that waits for it (Spring MVC's request thread). Left to the
 * thread that completes the answer, it would run on the Redis client's I/O thread, which every request shares:
 * building the responses of all requests one after the other there halved a limited endpoint's throughput
 * (docs/BENCHMARKS-HISTORY.md, the first full run's HTTP results).
 */
final class WaitingThread implements Executor {

	/** Handed over without a lock: the I/O thread that hands them over must never park (BlockHound). */
	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	private final Thread waiting = Thread.currentThread();

	@Override
	public void execute(Runnable task) {
		this.tasks.add(task);
		LockSupport.unpark(this.waiting);
	}

	/** Runs the tasks given to this executor until {@code done} completes; to be called by the waiting thread. */
	void runUntil(CompletableFuture<?> done) throws InterruptedException {
		// wakes this thread when done completes without a task of its own (decided already, or on no thread)
		done.whenComplete((result, failure) -> LockSupport.unpark(this.waiting));
		while (true) {
			for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
				task.run();
			}
			if (done.isDone()) {
				return;
			}
			// an unpark that came before this park makes it return at once: no wake-up is lost
			LockSupport.park(this);
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
		}
	}

}
