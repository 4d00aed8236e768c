package dev.ratelimit.spring.limits;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.core.UsageRecording;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import org.jspecify.annotations.Nullable;

/**
 * What the limits read of the configuration under {@code ratelimit}: the defaults, the filter rules and the plans.
 * The starter's configuration properties implement it, so that the limits depend on what they read rather than on
 * how it is bound; the names and meanings are those of the properties.
 */
public interface LimitSettings {

	/** {@code ratelimit.defaults}. */
	Defaults getDefaults();

	/** {@code ratelimit.plan}. */
	Plan getPlan();

	/** {@code ratelimit.plans}: plan name → limit name → shape, in configuration order. */
	Map<String, ? extends Map<String, ? extends Shape>> getPlans();

	/** {@code ratelimit.usage}. */
	default Usage getUsage() {
		return () -> UsageRecording.DEFAULT_MAX_CLIENTS;
	}

	/** {@code ratelimit.usage}: what limits that record usage share. */
	interface Usage {

		/** {@code max-clients}: the most clients whose usage a limit records per period. */
		int getMaxClients();

	}

	/** The shape of a limit, of which a rule or a plan sets some parts: {@code null} where unset. */
	interface Shape {

		@Nullable Algorithm getAlgorithm();

		@Nullable Long getLimit();

		@Nullable Duration getWindow();

		@Nullable Long getCapacity();

		/**
		 * {@code period}: a calendar period that a fixed window counts in instead of a window of one length
		 * (docs/ALGORITHMS.md, "Calendar periods"); {@code null} when unset.
		 */
		default CalendarPeriod.@Nullable Unit getPeriod() {
			return null;
		}

		/** {@code zone}: the time zone of {@link #getPeriod()}; {@code null}: UTC. */
		default @Nullable ZoneId getZone() {
			return null;
		}

		/** {@code first-day-of-week}: the day a week of {@link #getPeriod()} starts on; {@code null}: Monday. */
		default @Nullable DayOfWeek getFirstDayOfWeek() {
			return null;
		}

	}

	/** {@code ratelimit.defaults}: every value set. */
	interface Defaults {

		Algorithm getAlgorithm();

		long getLimit();

		Duration getWindow();

		@Nullable Long getCapacity();

		long getCost();

		FailurePolicy getFailurePolicy();

		LimitMode getMode();

		Duration getMaxWait();

	}

	/**
	 * A limit as configuration names it, where a shape is not enough: a filter rule's, or a gateway route's
	 * ({@code ratelimit-spring-cloud-gateway}). {@code null} where unset.
	 */
	interface Limit extends Shape {

		@Nullable String getName();

		@Nullable Long getCost();

		@Nullable FailurePolicy getFailurePolicy();

		@Nullable LimitMode getMode();

		/**
		 * {@code usage}: whether and per which period the limit records the units each client used ({@code true}, a
		 * calendar period such as {@code month in Europe/Berlin}, or {@code false}); {@code null} when unset: none.
		 */
		default @Nullable String getUsage() {
			return null;
		}

	}

	/** One of {@code ratelimit.filter.rules}: {@code null} where unset. */
	interface Rule extends Limit {

		List<String> getPaths();

		List<String> getMethods();

		@Nullable String getKey();

		/** {@code charge-on-status}: empty when every request is charged on arrival. */
		List<Integer> getChargeOnStatus();

		/** {@code reserve}: with {@code charge-on-status}, whether the cost is reserved and given back. */
		boolean isReserve();

		/** {@code settle-cost-header}: the response header of the request's real cost, or {@code null}. */
		@Nullable String getSettleCostHeader();

		/** {@code max-wait}: how long a denied request waits for a permit or a lease, or {@code null} (no wait). */
		@Nullable Duration getMaxWait();

	}

	/** {@code ratelimit.plan}. */
	interface Plan {

		@Nullable String getExpression();

		@Nullable String getDefaultPlan();

	}

}
