package dev.ratelimit.spring.autoconfigure;

/**
 * The shape of one limit in one plan. Unset values are the limit's own (from its annotation or rule, then
 * ratelimit.defaults).
 */
public class PlanLimitProperties extends LimitShapeProperties {

}
