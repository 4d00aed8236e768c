/**
 * Auto-configuration: wiring only. {@code RateLimitAutoConfiguration} imports the package-private configurations of
 * the store, the enforcement, each web stack, calls outside requests and the endpoint; {@code RateLimitProperties}
 * binds {@code ratelimit.*}.
 */
@NullMarked
package dev.ratelimit.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
