package dev.ratelimit.spring.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.core.LimitDecision;
import dev.ratelimit.spring.enforce.OutcomeCharger;
import dev.ratelimit.spring.enforce.PermitWaiter;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A call with limits charged by outcome ({@code @RateLimited(chargeOn, chargeWhen, chargeOnStatus)}): admitted
 * while those limits have room (read without consuming) and the call's other limits admit it (decided as usual),
 * run, then charged to the limits whose condition its outcome matches, in one decision per client key. Calls in
 * flight at once all read the room before any is charged, so they can overshoot a limit by at most their number.
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
	 * Admits, runs and charges the call, waiting for a permit up to {@code maxWait} as {@link PermitWaiter} does.
	 * @return what the method returned
	 * @throws Throwable what the method threw, or a {@link dev.ratelimit.spring.RateLimitException} when not admitted
	 */
	@SuppressWarnings("NullAway") // admission.get(): List.of(), then the list that peekAdmission read
	public static @Nullable Object invoke(PermitWaiter waits, LimitedCall call, Duration maxWait) throws Throwable {
		OutcomeCharger charger = waits.enforcer().byOutcome();
		List<ConfiguredLimit> byOutcome = byOutcome(call.limits(), true);
		List<ConfiguredLimit> before = byOutcome(call.limits(), false);
		AtomicReference<List<LimitDecision>> admission = new AtomicReference<>(List.of());
		waits.enforce(call.request(), (attempt) -> {
			// read first: a call without room is refused before the other limits consume anything
			admission.set(charger.peekAdmission(attempt, byOutcome, call.context()));
			if (!before.isEmpty()) {
				waits.enforcer().enforceAndWait(attempt, before, call.context());
			}
			charger.admitted(attempt);
		}, maxWait);
		Object result = null;
		Throwable thrown = null;
		try {
			result = call.invocation().proceed();
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		charge(charger, call, result, thrown, admission.get());
		if (thrown != null) {
			throw thrown;
		}
		return result;
	}

	/**
	 * After the call: its limits charged by outcome whose condition the outcome matches are charged, and the
	 * response's fields are theirs after the charge and, for the others, the states {@code admission} read. Blocks
	 * the calling thread.
	 * @param result what the call returned ({@code #result} in the conditions); {@code null} when it threw
	 * @param thrown what the call threw ({@code #exception}); {@code null} when it returned
	 */
	static void charge(OutcomeCharger charger, LimitedCall call, @Nullable Object result, @Nullable Throwable thrown,
			List<LimitDecision> admission) {
		call.context().setVariable("result", result);
		call.context().setVariable("exception", thrown);
		charger.charge(call.request(), byOutcome(call.limits(), true), (limit) -> matches(limit, call, result, thrown),
				call.context(), admission);
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
