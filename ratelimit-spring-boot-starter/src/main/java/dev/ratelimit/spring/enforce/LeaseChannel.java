package dev.ratelimit.spring.enforce;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * One limit and client's callers waiting for a lease ({@link LeaseWaits}): how many releases this instance heard, and the callers not deciding at the
 * moment, longest waiting first. Its monitor is held only to count and to hand a wake-up over (on the
 * subscription's thread, which must not block).
 */
final class LeaseChannel {

	final String name;

	private final PriorityQueue<LeasePause> idle = new PriorityQueue<>(Comparator.comparingLong(LeasePause::arrival));

	private long heard;

	/** Callers registered; changed only inside the map's compute, for this channel's key. */
	int callers;

	LeaseChannel(String name) {
		this.name = name;
	}

	/** A release: the longest waiting caller is woken, or with {@code all} (a new subscription) every one. */
	synchronized void released(boolean all) {
		this.heard++;
		wakeNext(all);
	}

	/** Wakes the longest waiting caller (or every one), skipping pauses that ended meanwhile. */
	synchronized void wakeNext(boolean all) {
		for (LeasePause pause = this.idle.poll(); pause != null; pause = this.idle.poll()) {
			// a pause settled meanwhile (its timer, another channel, cancelled) leaves the release to the next
			if (pause.wakeByRelease() && !all) {
				return;
			}
		}
	}

	synchronized long heard() {
		return this.heard;
	}

	/** Parks {@code pause} unless a release was heard since {@code seen}; returns whether it was parked. */
	synchronized boolean park(LeasePause pause, long seen) {
		if (this.heard != seen) {
			return false;
		}
		this.idle.add(pause);
		return true;
	}

	synchronized void unpark(LeasePause pause) {
		this.idle.remove(pause);
	}

}
