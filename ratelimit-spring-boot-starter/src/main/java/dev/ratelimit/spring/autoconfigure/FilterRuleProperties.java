package dev.ratelimit.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.limits.LimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * One filter rule. Unset attributes take the values under 'ratelimit.defaults'.
 */
public class FilterRuleProperties extends LimitShapeProperties implements LimitSettings.Rule {

	/**
	 * Name of the limit, shown in the RateLimit-Policy header and part of the Redis key. Defaults to the first
	 * path pattern.
	 */
	private @Nullable String name;

	/**
	 * Path patterns in Spring's PathPattern syntax, such as '/api/**', matched against the path within the
	 * application.
	 */
	private List<String> paths = new ArrayList<>();

	/**
	 * HTTP methods the rule applies to, such as 'POST'. Empty means every method.
	 */
	private List<String> methods = new ArrayList<>();

	/**
	 * Units one request takes.
	 */
	private @Nullable Long cost;

	/**
	 * SpEL expression for the client key, with #request, #principal and bean references (@bean). Defaults to
	 * the client's IP address.
	 */
	private @Nullable String key;

	/**
	 * What to do when Redis cannot answer in time: 'fail-open', 'fail-closed' or 'fail-local'.
	 */
	private @Nullable FailurePolicy failurePolicy;

	/**
	 * 'enforce' or 'shadow' (decided and counted, never refusing). Defaults to ratelimit.defaults.mode.
	 */
	private @Nullable LimitMode mode;

	/**
	 * HTTP statuses whose responses are charged, such as [401] to count failed logins only: a request is then
	 * admitted while the limit has room (read without consuming) and charged once its response status is known.
	 * Such rules run in a filter of their own before Spring Security, so their key cannot read #principal. Empty
	 * means every request is charged on arrival.
	 */
	private List<Integer> chargeOnStatus = new ArrayList<>();

	/**
	 * With charge-on-status: reserve the cost on arrival and give it back when the response status does not
	 * charge, so that requests in flight at once never exceed the limit (exact). A request that does not count
	 * then holds its unit until it is answered.
	 */
	private boolean reserve;

	/**
	 * Response header that the application sets to the request's real cost (a whole number of at least 0), such
	 * as 'X-Tokens-Used': the request is admitted with 'cost' as a provisional cost and settled by the header's
	 * value once it is answered; the header is removed from the response. Such rules run before Spring Security,
	 * with charge-on-status rules, so their key cannot read #principal.
	 */
	private @Nullable String settleCostHeader;

	/**
	 * How long a request that the rule denies waits for a permit, or for a concurrency limit a lease, before it is
	 * answered 429; unset or 0 answers at once. On Spring MVC the wait holds a server thread (WebFlux waits without
	 * one). Not with charge-on-status or settle-cost-header. A request under several limits waits the shortest of
	 * their waits.
	 */
	private @Nullable Duration maxWait;

	/**
	 * Whether and per which period the limit records the units each client used, for billing and dashboards (the
	 * ratelimits endpoint lists them): 'true' per the rule's calendar period, else per calendar month in UTC; or a
	 * calendar period such as 'month in Europe/Berlin' or 'week from sunday'. The client keys are then kept in clear
	 * text in Redis: personal data, never an API key (key the rule by the account).
	 */
	private @Nullable String usage;

	@Override
	public @Nullable String getUsage() {
		return this.usage;
	}

	public void setUsage(@Nullable String usage) {
		this.usage = usage;
	}

	public @Nullable Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(@Nullable Duration maxWait) {
		this.maxWait = maxWait;
	}

	public @Nullable String getSettleCostHeader() {
		return this.settleCostHeader;
	}

	public void setSettleCostHeader(@Nullable String settleCostHeader) {
		this.settleCostHeader = settleCostHeader;
	}

	public boolean isReserve() {
		return this.reserve;
	}

	public void setReserve(boolean reserve) {
		this.reserve = reserve;
	}

	public List<Integer> getChargeOnStatus() {
		return this.chargeOnStatus;
	}

	public void setChargeOnStatus(List<Integer> chargeOnStatus) {
		this.chargeOnStatus = chargeOnStatus;
	}

	public @Nullable LimitMode getMode() {
		return this.mode;
	}

	public void setMode(@Nullable LimitMode mode) {
		this.mode = mode;
	}

	public @Nullable String getName() {
		return this.name;
	}

	public void setName(@Nullable String name) {
		this.name = name;
	}

	public List<String> getPaths() {
		return this.paths;
	}

	public void setPaths(List<String> paths) {
		this.paths = paths;
	}

	public List<String> getMethods() {
		return this.methods;
	}

	public void setMethods(List<String> methods) {
		this.methods = methods;
	}

	public @Nullable Long getCost() {
		return this.cost;
	}

	public void setCost(@Nullable Long cost) {
		this.cost = cost;
	}

	public @Nullable String getKey() {
		return this.key;
	}

	public void setKey(@Nullable String key) {
		this.key = key;
	}

	public @Nullable FailurePolicy getFailurePolicy() {
		return this.failurePolicy;
	}

	public void setFailurePolicy(@Nullable FailurePolicy failurePolicy) {
		this.failurePolicy = failurePolicy;
	}

}
