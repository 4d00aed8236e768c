/**
 * Spring WebFlux: the web filter, decisions off the event loop, and annotated calls that decide when subscribed.
 */
@NullMarked
package dev.ratelimit.spring.web.reactive;

import org.jspecify.annotations.NullMarked;
