/**
 * Spring WebFlux: the web filter, decisions off the event loop, and annotated calls that decide when subscribed.
 */
package dev.ratelimit.spring.web.reactive;
