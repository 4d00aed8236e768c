package dev.ratelimit.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The filter that applies rules by request path: a servlet filter on Spring MVC, a WebFilter on WebFlux.
 */
public class FilterProperties {

	/**
	 * Whether 'ratelimit.filter.rules' are applied. On Spring MVC, false removes the filter and @RateLimited
	 * is decided when the method is called; on WebFlux the WebFilter stays, for @RateLimited handlers.
	 */
	private boolean enabled = true;

	/**
	 * Order of the filter. The default runs after Spring Security's filter chain (-100), so key expressions can
	 * read the authenticated principal.
	 */
	private int order = 0;

	/**
	 * Order of the filter of the rules with charge-on-status. The default runs before Spring Security's filter
	 * chain (-100), so that the 401 and 403 answers of Spring Security are counted.
	 */
	private int chargeOnStatusOrder = -110;

	/**
	 * Limits applied by request path, each to every request it matches.
	 */
	private List<FilterRuleProperties> rules = new ArrayList<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public int getChargeOnStatusOrder() {
		return this.chargeOnStatusOrder;
	}

	public void setChargeOnStatusOrder(int chargeOnStatusOrder) {
		this.chargeOnStatusOrder = chargeOnStatusOrder;
	}

	public List<FilterRuleProperties> getRules() {
		return this.rules;
	}

	public void setRules(List<FilterRuleProperties> rules) {
		this.rules = rules;
	}

}
