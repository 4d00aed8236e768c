package dev.ratelimit.spring.aop;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.enforce.Reservation;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A call with limits charged by outcome ({@code @RateLimited(chargeOn, chargeWhen, chargeOnStatus)}): admitted
 * while those limits have room (read without consuming) and the call's other limits admit it (decided as usual),
 * run, then charged to the limits whose condition its outcome matches, in one decision per client key. Calls in
 * flight at once all read the room before any is charged, so they can overshoot a limit by at most their number.
 * Limits that reserve ({@code reserve}, {@code settleCost}) are decided at admission as usual, so nothing
 * overshoots, and settled after the call: given back when their condition does not match, charged or given back the
 * difference to the call's real cost.
 */
public final class ChargeByOutcome {

	private static final Log logger = LogFactory.getLog(ChargeByOutcome.class);

	private ChargeByOutcome() {
	}

	/** Whether any of {@code limits} is charged by outcome. */
	public static boolean any(List<ConfiguredLimit> limits) {
		for (ConfiguredLimit limit : limits) {
			if (limit.chargedByOutcome()) {
				return true;
			}
		}
		return false;
	}

	/** The limits charged by outcome ({@code charged} true), or those charged before the call. */
	public static List<ConfiguredLimit> byOutcome(List<ConfiguredLimit> limits, boolean charged) {
		return limits.stream().filter((limit) -> limit.chargedByOutcome() == charged).toList();
	}

	/**
	 * The limits charged by outcome that are read at admission and charged after the call ({@code reserved} false),
	 * or that reserve their cost at admission and settle it after the call.
	 */
	public static List<ConfiguredLimit> byOutcome(List<ConfiguredLimit> limits, boolean charged, boolean reserved) {
		return limits.stream()
			.filter((limit) -> limit.chargedByOutcome() == charged && limit.reserved() == reserved)
			.toList();
	}

	/**
	 * Admits, runs and charges the call, waiting for a permit up to {@code maxWait} as {@link PermitWaiter} does.
	 * @return what the method returned
	 * @throws Throwable what the method threw, or a {@link dev.ratelimit.spring.RateLimitException} when not admitted
	 */
	@SuppressWarnings("NullAway") // admission.get(): List.of(), then the list that peekAdmission read
	public static @Nullable Object invoke(PermitWaiter waits, LimitedCall call, Duration maxWait) throws Throwable {
		OutcomeCharger charger = waits.enforcer().byOutcome();
		List<ConfiguredLimit> peeked = byOutcome(call.limits(), true, false);
		List<ConfiguredLimit> reserved = byOutcome(call.limits(), true, true);
		List<ConfiguredLimit> before = byOutcome(call.limits(), false);
		AtomicReference<List<LimitDecision>> admission = new AtomicReference<>(List.of());
		Reservation reservation = new Reservation();
		waits.enforce(call.request(), call.limits(), (attempt) -> {
			// read first: a call without room is refused before the other limits consume anything
			if (!peeked.isEmpty()) {
				admission.set(charger.peekAdmission(attempt, peeked, call.context()));
			}
			try {
				if (!reserved.isEmpty()) {
					waits.enforcer().reserveAndWait(attempt, reserved, call.context(), reservation);
				}
				if (!before.isEmpty()) {
					waits.enforcer().enforceAndWait(attempt, before, call.context(), reservation);
				}
			}
			catch (RuntimeException ex) {
				// not admitted: what was reserved is given back before the next attempt or the 429
				charger.release(attempt, reservation);
				throw ex;
			}
			charger.admitted(attempt);
		}, maxWait, reservation);
		Object result = null;
		Throwable thrown = null;
		try {
			result = call.invocation().proceed();
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		charge(charger, call, result, thrown, admission.get(), reservation);
		if (thrown != null) {
			throw thrown;
		}
		return result;
	}

	/**
	 * After the call: its limits read at admission whose condition the outcome matches are charged, and the
	 * response's fields are theirs after the charge and, for the others, the states {@code admission} read; its
	 * reserved limits are settled: given back when their condition does not match, charged their real cost
	 * ({@code settleCost}). Blocks the calling thread.
	 * @param result what the call returned ({@code #result} in the conditions); {@code null} when it threw
	 * @param thrown what the call threw ({@code #exception}); {@code null} when it returned
	 */
	static void charge(OutcomeCharger charger, LimitedCall call, @Nullable Object result, @Nullable Throwable thrown,
			List<LimitDecision> admission, Reservation reservation) {
		call.context().setVariable("result", result);
		call.context().setVariable("exception", thrown);
		List<ConfiguredLimit> peeked = byOutcome(call.limits(), true, false);
		if (!peeked.isEmpty()) {
			charger.charge(call.request(), peeked, (limit) -> matches(limit, call, result, thrown), call.context(),
					admission);
		}
		charger.settle(call.request(), reservation, (limit) -> cost(limit, call, result, thrown));
	}

	/**
	 * What the call really took of a reserved limit: its cost when its outcome charges it, else 0; with
	 * {@code settleCost}, the expression's value (the provisional cost when the call threw or the value is not a
	 * whole number of at least 0).
	 */
	@SuppressWarnings("NullAway") // limit.settleCost(): checked
	static long cost(ConfiguredLimit limit, LimitedCall call, @Nullable Object result, @Nullable Throwable thrown) {
		long provisional = limit.request().cost();
		if (limit.settleCost() == null) {
			return matches(limit, call, result, thrown) ? provisional : 0;
		}
		if (thrown != null) {
			return provisional;
		}
		Object value;
		try {
			value = limit.settleCost().getValue(call.context());
		}
		catch (RuntimeException ex) {
			logger.warn("settleCost of " + limit.source() + " failed; keeping the provisional cost: " + ex);
			return provisional;
		}
		Long whole = wholeNumber(value);
		if (whole == null || whole < 0) {
			logger.warn("settleCost of " + limit.source() + " gave " + value
					+ ", not a whole number of at least 0; keeping the provisional cost");
			return provisional;
		}
		return whole;
	}

	private static @Nullable Long wholeNumber(@Nullable Object value) {
		if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
			return ((Number) value).longValue();
		}
		if (value instanceof Number number) {
			try {
				return new BigDecimal(number.toString()).longValueExact();
			}
			catch (ArithmeticException | NumberFormatException ex) {
				return null;
			}
		}
		return null;
	}

	/** A condition that fails to evaluate charges: a limit must not be left unlimited by a broken expression. */
	@SuppressWarnings("NullAway") // limit.charge(): a limit charged by outcome has its condition
	private static boolean matches(ConfiguredLimit limit, LimitedCall call, @Nullable Object result,
			@Nullable Throwable thrown) {
		try {
			return limit.charge().matches(call.method(), result, thrown, call.context());
		}
		catch (RuntimeException ex) {
			logger.warn("chargeWhen of " + limit.source() + " failed; charging the call: " + ex);
			return true;
		}
	}

}
