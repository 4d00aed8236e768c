package dev.ratelimit.sample;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.stereotype.Component;

/** When calls reached the stand-in partner endpoint, in ms on this JVM's monotonic clock. */
@Component
class PartnerStandIn {

	private final List<Long> arrivals = new CopyOnWriteArrayList<>();

	void arrived() {
		this.arrivals.add(System.nanoTime() / 1_000_000);
	}

	/** Forgets earlier arrivals; returns now, for {@link #arrivalsSince}. */
	long reset() {
		this.arrivals.clear();
		return System.nanoTime() / 1_000_000;
	}

	/** The arrivals in ms after {@code start}, in order. */
	List<Long> arrivalsSince(long start) {
		return this.arrivals.stream().map((at) -> at - start).sorted().toList();
	}

}
