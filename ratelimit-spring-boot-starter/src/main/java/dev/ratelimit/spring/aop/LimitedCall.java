package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.util.List;

import dev.ratelimit.spring.enforce.LimitedRequest;
import dev.ratelimit.spring.limits.ConfiguredLimit;
import org.aopalliance.intercept.MethodInvocation;

import org.springframework.expression.EvaluationContext;

/**
 * One call of a limited method, as the stacks' {@link CallLimiter}s hand it to {@link ChargeByOutcome} and
 * {@link ReactorPermitWaiter}.
 *
 * @param invocation the call
 * @param method the most specific method of the target class
 * @param request the request the call belongs to, or a {@link dev.ratelimit.spring.enforce.BackgroundCall}
 * @param limits the limits the call is decided against (those left for it after the request's arrival); not empty
 * @param context the evaluation context of their keys, with the call's arguments; {@code #result} and
 * {@code #exception} are set on it after a call charged by outcome
 */
public record LimitedCall(MethodInvocation invocation, Method method, LimitedRequest request,
		List<ConfiguredLimit> limits, EvaluationContext context) {
}
