/**
 * The {@code ratelimits} Actuator endpoint: the limits in force, a client's state, and resetting it.
 */
package dev.ratelimit.spring.actuate.endpoint;
