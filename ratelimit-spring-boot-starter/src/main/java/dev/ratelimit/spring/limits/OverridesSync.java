package dev.ratelimit.spring.limits;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Keeps this instance's limits in step with the overrides in the {@link OverrideStore}: reads them once on startup,
 * before the web server takes requests (an instance that cannot read them starts with {@code application.yml} and
 * applies them as soon as the store answers), then every {@code ratelimit.overrides.poll-interval} (one small call
 * while nothing changed). An override set through the endpoint is checked here first, against the whole
 * configuration, then stored, then applied on this instance at once.
 */
public final class OverridesSync implements SmartLifecycle {

	/** After the limiter's Redis connection ({@code DEFAULT_PHASE - 4096}), before the web server. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4095;

	private static final Log logger = LogFactory.getLog(OverridesSync.class);

	private final OverrideStore store;

	private final LimitConfigurations configurations;

	private final Duration interval;

	/** How often a change is checked again when other changes keep landing between its read and its write. */
	private static final int ATTEMPTS = 5;

	/** The version of the overrides last read; written under this object's lock. */
	private long known = -1;

	/** The overrides last read, in force or left aside; written under this object's lock. */
	private LimitOverrides stored = LimitOverrides.NONE;

	/** The version whose overrides were refused, logged once; written under this object's lock. */
	private long refused = -1;

	/** Whether the last read failed, so that only the first failure of a run of them is logged as a warning. */
	private boolean failing;

	private @Nullable ScheduledExecutorService timer;

	/**
	 * @param interval how often the store is read; positive
	 */
	public OverridesSync(OverrideStore store, LimitConfigurations configurations, Duration interval) {
		this.store = store;
		this.configurations = configurations;
		this.interval = interval;
	}

	/**
	 * Reads the store, and applies its overrides when they changed since the last read (overrides that would make a
	 * limit invalid here are logged, once per version, and change nothing).
	 * @return whether the store answered
	 */
	public synchronized boolean sync() {
		OverrideStore.Stored stored;
		try {
			stored = this.store.read(this.known);
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				logger.warn("Could not read the rate-limit overrides (" + ex + "); the limits stay as they are until"
						+ " the store answers");
			}
			this.failing = true;
			return false;
		}
		if (this.failing) {
			logger.info("The rate-limit overrides can be read again");
			this.failing = false;
		}
		if (stored != null) {
			if (stored.version() == 0 && !this.stored.isEmpty()) {
				logger.warn("The rate-limit overrides are gone from the store (evicted under an allkeys maxmemory"
						+ " policy, deleted, or a Redis that restarted empty): the limits are the configuration's"
						+ " again until an override is set");
			}
			applyQuietly(stored, "store");
		}
		return true;
	}

	/**
	 * Sets the override of the limit {@code name} (of its shape in {@code plan}), in place of its earlier one, or
	 * undoes it when {@code override} is {@code null}: {@link #override(OverrideTarget, LimitOverride)}.
	 */
	public LimitConfiguration override(@Nullable String plan, String name, @Nullable LimitOverride override) {
		return override(OverrideTarget.inPlan(plan, name), override);
	}

	/**
	 * Sets the override of {@code target} (a limit, its shape in a plan, its shape for a client), in place of its
	 * earlier one, or undoes it when {@code override} is {@code null}: checked against the whole configuration with
	 * the overrides as the store holds them, stored for every instance only if no other change landed in between
	 * (else read and checked again), and in force here on return.
	 * @return the configuration now in force
	 * @throws InvalidOverrideException naming the property or the method when the override makes a limit invalid:
	 * nothing is stored then
	 * @throws RuntimeException the store's exception when it does not answer (a write sent may still land)
	 */
	public synchronized LimitConfiguration override(OverrideTarget target, @Nullable LimitOverride override) {
		for (int attempt = 1;; attempt++) {
			OverrideStore.Stored latest = this.store.read(this.known);
			if (latest != null) {
				applyQuietly(latest, "store");
			}
			try {
				this.configurations.check(this.configurations.current().overrides().with(target, override));
			}
			catch (RuntimeException ex) {
				throw new InvalidOverrideException(ex.getMessage()
						+ ((override != null) ? " (the override: " + override.encode() + ")" : ""), ex);
			}
			OverrideStore.Stored written = this.store.write(target, override, this.known);
			if (written != null) {
				return apply(written, "endpoint");
			}
			if (attempt == ATTEMPTS) {
				throw new IllegalStateException("The overrides changed " + ATTEMPTS + " times while this change was"
						+ " checked; try again");
			}
		}
	}

	/** The overrides last read from the store: those in force, and those left aside here. */
	public synchronized LimitOverrides stored() {
		return this.stored;
	}

	private void applyQuietly(OverrideStore.Stored stored, String source) {
		try {
			apply(stored, source);
		}
		catch (RuntimeException ex) {
			// logged by apply: this instance goes on with the limits it has
		}
	}

	private LimitConfiguration apply(OverrideStore.Stored stored, String source) {
		this.known = stored.version();
		this.stored = stored.overrides();
		try {
			return this.configurations.override(stored.overrides(), source);
		}
		catch (RuntimeException ex) {
			if (this.refused != stored.version()) {
				logger.error("The rate-limit overrides of version " + stored.version() + " are not valid here; the"
						+ " limits stay as they are: " + ex.getMessage());
				this.refused = stored.version();
			}
			throw ex;
		}
	}

	@Override
	public synchronized void start() {
		sync();
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "ratelimit-overrides");
			thread.setDaemon(true);
			return thread;
		});
		long ms = this.interval.toMillis();
		timer.scheduleWithFixedDelay(this::sync, ms, ms, TimeUnit.MILLISECONDS);
		this.timer = timer;
	}

	@Override
	public synchronized void stop() {
		if (this.timer != null) {
			this.timer.shutdownNow();
			this.timer = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.timer != null;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/** An override refused: it would make a limit invalid. */
	public static final class InvalidOverrideException extends IllegalArgumentException {

		InvalidOverrideException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
