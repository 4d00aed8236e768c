package dev.ratelimit.spring.autoconfigure;

import dev.ratelimit.spring.enforce.NearLimit;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The limiter's Micrometer meters (with a {@code MeterRegistry}) and the near-limit share that the
 * {@code ratelimits} endpoint also reports.
 */
public class MetricsProperties {

	/**
	 * Share of a limit's budget above which an admitted request counts as near the limit: in the
	 * 'ratelimit.near.limit' counter, and as 'nearLimit' in the ratelimits endpoint's view of a client. Greater than
	 * 0, less than 1; 0.8 counts the requests that leave less than a fifth of the budget.
	 */
	private double nearLimitRatio = 0.8;

	public double getNearLimitRatio() {
		return this.nearLimitRatio;
	}

	public void setNearLimitRatio(double nearLimitRatio) {
		this.nearLimitRatio = nearLimitRatio;
	}

	/**
	 * The near-limit rule of {@code ratelimit.metrics.near-limit-ratio}.
	 * @throws InvalidConfigurationPropertyValueException for a ratio not greater than 0 or not less than 1
	 */
	NearLimit nearLimit() {
		try {
			return new NearLimit(this.nearLimitRatio);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.metrics.near-limit-ratio",
					this.nearLimitRatio, ex.getMessage());
		}
	}

}
