package dev.ratelimit.spring.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.ratelimit.spring.RateLimited;

/**
 * Applies {@link RateLimited} to method calls made while an HTTP request is handled, where the filter has not
 * decided them already on the request's arrival ({@link HandlerLimits}): limits whose key reads the method's
 * arguments, and every limit of methods that are not the request's handler or when the filter is off. A denial throws
 * {@link dev.ratelimit.spring.RateLimitExceededException}, which Spring MVC's exception handling turns into the
 * 429 response. Runs before other advice ({@link Ordered#HIGHEST_PRECEDENCE}), so a denied call opens no transaction.
 * Calls outside an HTTP request are not limited: the limits are per client of a request.
 */
@Aspect
final class RateLimitedAspect implements Ordered {

	private final RateLimitedMethods methods;

	private final RateLimitEnforcer enforcer;

	RateLimitedAspect(RateLimitedMethods methods, RateLimitEnforcer enforcer) {
		this.methods = methods;
		this.enforcer = enforcer;
	}

	// Controllers are advised whatever their annotations, because AspectJ's @annotation does not see an annotation
	// on an interface method (generated API interfaces); RateLimitedMethods finds those, and answers fast for others.
	@Around("@annotation(dev.ratelimit.spring.RateLimited) || @annotation(dev.ratelimit.spring.RateLimited.List)"
			+ " || @within(dev.ratelimit.spring.RateLimited) || @within(dev.ratelimit.spring.RateLimited.List)"
			+ " || within(@org.springframework.stereotype.Controller *)"
			+ " || within(@org.springframework.web.bind.annotation.RestController *)")
	Object limit(ProceedingJoinPoint call) throws Throwable {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet) || servlet.getResponse() == null) {
			return call.proceed();
		}
		Method method = ((MethodSignature) call.getSignature()).getMethod();
		Class<?> targetClass = AopUtils.getTargetClass(call.getTarget());
		List<ConfiguredLimit> limits = this.methods.limitsFor(method, targetClass);
		if (!limits.isEmpty()) {
			HttpServletRequest request = servlet.getRequest();
			HttpServletResponse response = servlet.getResponse();
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			limits = HandlerLimits.leftForTheCall(request, specific, limits);
			if (!limits.isEmpty()) {
				this.enforcer.enforce(request, response, limits,
						this.enforcer.clientKeys().context(request, specific, call.getArgs()));
			}
		}
		return call.proceed();
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
