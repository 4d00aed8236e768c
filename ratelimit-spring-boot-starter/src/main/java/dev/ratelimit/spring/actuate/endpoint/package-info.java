/**
 * The {@code ratelimits} Actuator endpoint: the limits in force, a client's state, and resetting it.
 */
@NullMarked
package dev.ratelimit.spring.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
