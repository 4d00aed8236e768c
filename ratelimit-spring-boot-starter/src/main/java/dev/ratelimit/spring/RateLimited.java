package dev.ratelimit.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Limits calls of the annotated method, or of every method of the annotated class, per client.
 *
 * <p>
 * Repeatable: {@code @RateLimited(limit = 10, window = "1s") @RateLimited(limit = 1000, window = "1h")} applies
 * both limits. Limits on one method with the same client key are decided in one Redis round trip, all or nothing:
 * a request denied by one consumes from none. Annotations on the class apply to every method, in addition to the
 * method's own.
 *
 * <p>
 * Attributes left unset take the defaults under {@code ratelimit.defaults.*}. Invalid values stop the application
 * at startup with a message naming the method. A denied call throws {@link RateLimitExceededException}, which Spring
 * MVC turns into {@code 429 Too Many Requests} with {@code Retry-After}, the rate-limit header fields and an RFC 9457
 * problem body.
 *
 * <p>
 * Calls made outside an HTTP request (a {@code @Scheduled} job, a message listener, any thread of the application)
 * are limited too: their key is the SpEL {@link #key()} over the method's arguments and beans, with
 * {@code #request} and {@code #principal} null; a limit without a key counts all such calls together, one budget
 * for the whole fleet (the way to throttle calls to a partner API). A key that is null or empty there cannot fall
 * back to an IP address, so the call is refused with {@link RateLimitKeyMissingException}. A denied call waits for
 * a permit up to {@link #maxWait()}, then throws {@link RateLimitExceededException}, which carries the limit's name
 * and the retry-after.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
@Reflective(RateLimitedReflectiveProcessor.class)
public @interface RateLimited {

	/** Value of {@link #limit()}, {@link #capacity()} and {@link #cost()} when not set: take the default. */
	long UNSET = Long.MIN_VALUE;

	/**
	 * Name of the limit, shown in the {@code RateLimit-Policy} header and part of the Redis key. Methods whose limits
	 * have the same name draw on one budget per client (their algorithm, limit and window must then agree). Defaults
	 * to {@code SimpleClassName.methodName} ({@code SimpleClassName} on a class).
	 */
	String name() default "";

	/**
	 * Algorithm: {@code fixed-window}, {@code sliding-log}, {@code sliding-window-counter} or {@code token-bucket}
	 * (property placeholders allowed). Defaults to {@code ratelimit.defaults.algorithm}.
	 */
	String algorithm() default "";

	/** Units allowed per window (token bucket: tokens added per window). Defaults to {@code ratelimit.defaults.limit}. */
	long limit() default UNSET;

	/**
	 * The window as a duration string such as {@code 500ms}, {@code 1s}, {@code 1h} or {@code PT1M} (property
	 * placeholders allowed). Defaults to {@code ratelimit.defaults.window}.
	 */
	String window() default "";

	/** Token bucket size. Defaults to {@code ratelimit.defaults.capacity}, or the limit when that is unset. */
	long capacity() default UNSET;

	/**
	 * A calendar period instead of a window: {@code day}, {@code week}, {@code month} or {@code year}, starting at
	 * midnight in {@link #zone()} (property placeholders allowed). Only the fixed window takes one, and a limit with a
	 * period and no {@link #algorithm()} is a fixed window (docs/ALGORITHMS.md, "Calendar periods").
	 */
	String period() default "";

	/** The time zone of {@link #period()}, an IANA id such as {@code Europe/Berlin}. Defaults to UTC. */
	String zone() default "";

	/** The day a week of {@link #period()} starts on, {@code monday} to {@code sunday}. Defaults to Monday. */
	String firstDayOfWeek() default "";

	/**
	 * Whether and per which period the limit records the units each client used, for billing and dashboards (the
	 * {@code ratelimits} endpoint lists them, largest first; docs/ALGORITHMS.md, "Usage"): {@code true} per the limit's
	 * calendar {@link #period()}, else per calendar month in UTC; or a calendar period such as {@code month in
	 * Europe/Berlin} or {@code week from sunday} (property placeholders allowed). The client keys are then kept in
	 * clear text in Redis: personal data, never an API key (key the limit by the account). Defaults to none.
	 */
	String usage() default "";

	/** Units one call takes. Defaults to {@code ratelimit.defaults.cost}. Must not exceed the limit (or capacity). */
	long cost() default UNSET;

	/**
	 * SpEL expression for the client key, evaluated per call with {@code #request}, {@code #principal}, the method's
	 * arguments by name and bean references ({@code @bean}). Defaults to the client's IP address. A null or empty
	 * result falls back according to {@code ratelimit.missing-key}.
	 */
	String key() default "";

	/**
	 * What to do when Redis cannot answer: {@code fail-open}, {@code fail-closed} or {@code fail-local}. Defaults to
	 * {@code ratelimit.defaults.failure-policy}.
	 */
	String failurePolicy() default "";

	/**
	 * {@code enforce} (a denial throws {@link RateLimitExceededException}) or {@code shadow}: decided and counted
	 * exactly as if enforced, but a denial lets the call through, with a rate-limited log line and the
	 * {@code shadow-denied} metric outcome (property placeholders allowed). Defaults to
	 * {@code ratelimit.defaults.mode}.
	 */
	String mode() default "";

	/**
	 * How long a denied call may wait for a permit, as a duration string ({@code 2s}, {@code 500ms}; property
	 * placeholders allowed): it sleeps the decision's retry-after, asks again, and throws
	 * {@link RateLimitExceededException} once the total would pass this. {@code 0} never waits. Unset, a call made
	 * outside an HTTP request waits up to {@code ratelimit.defaults.max-wait} (2 s), and a call made while a request
	 * is handled does not wait (a server answers 429 rather than hold its thread). With several limits on a method,
	 * the call waits up to the shortest of theirs. Methods returning {@code Mono}, {@code Flux} or
	 * {@code CompletionStage} wait with a delay, never blocking a thread.
	 */
	String maxWait() default "";

	/**
	 * Charge by outcome: the call is charged only when it throws one of these exception types (or a subtype), for
	 * example a failed login's {@code BadCredentialsException}. With {@link #chargeWhen()} or
	 * {@link #chargeOnStatus()}, any of them that matches charges. A call is admitted only while the limit has room
	 * for its cost (read without consuming), and the charge after the call is one atomic decision, so calls in
	 * flight at once can overshoot the limit by at most their number. For methods returning a plain value (Spring
	 * MVC, outside requests) or a {@code Mono} (WebFlux, outside requests); startup stops on other methods.
	 */
	Class<? extends Throwable>[] chargeOn() default {};

	/**
	 * Charge by outcome: a SpEL condition evaluated after the call, with {@code #result} (null when it threw),
	 * {@code #exception} (null when it returned), the arguments by name, {@code #request}, {@code #principal} and
	 * beans; the call is charged when it is {@code true}. See {@link #chargeOn()}.
	 */
	String chargeWhen() default "";

	/**
	 * Charge by outcome, for HTTP handlers: the call is charged when the status its outcome stands for is one of
	 * these, such as {@code 401}: a returned {@code ResponseEntity}'s status, a thrown {@code ErrorResponse}'s (a
	 * {@code ResponseStatusException}, say) or that of an exception class annotated {@code @ResponseStatus}, the
	 * method's {@code @ResponseStatus}, else 200 for a returned value; another exception stands for no status. On a
	 * method that is not a handler ({@code @RequestMapping}) startup stops. See {@link #chargeOn()}.
	 */
	int[] chargeOnStatus() default {};

	/**
	 * With charge by outcome ({@link #chargeOn()}, {@link #chargeWhen()}, {@link #chargeOnStatus()}): reserve the
	 * cost when the call is admitted, as an ordinary decision, and give it back after the call when its outcome does
	 * not charge. Exact: calls in flight at once never take more than the limit (100 concurrent failed logins against
	 * a limit of 5 run 5). The price: a call that turns out not to count (a successful login) holds its unit until it
	 * returns, so while a client's calls are in flight they are also bounded by the limit. Default: the room is read
	 * at admission and the call charged after it, which lets calls in flight overshoot by their number. On a limit not
	 * charged by outcome startup stops.
	 */
	boolean reserve() default false;

	/**
	 * A cost known only after the call, such as the tokens of an LLM completion: a SpEL expression over
	 * {@code #result} (and the arguments, {@code #request}, {@code #principal} and beans) whose value, a whole number
	 * of at least 0, is what the call really took. The call is admitted with {@link #cost()} as a provisional cost,
	 * reserved; after it the difference is charged, into debt when it crosses the limit (the call completes, the next
	 * ones wait the debt out), or the unused part given back (docs/ALGORITHMS.md, "Settling a reservation"). A call
	 * that throws, or a value that is not a number of at least 0, keeps the provisional cost (with a WARN for the
	 * value). For methods returning a plain value or a {@code Mono}, as charge by outcome; not with
	 * {@link #chargeOn()}, {@link #chargeWhen()} or {@link #chargeOnStatus()}.
	 */
	String settleCost() default "";

	/** Container of repeated {@link RateLimited} annotations. */
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@Reflective(RateLimitedReflectiveProcessor.class)
	@interface List {

		RateLimited[] value();

	}

}
