/**
 * The drop-in checks' Spring WebFlux host application, and the report of what it owns, reactive side included.
 */
@NullMarked
package dev.ratelimit.dropin.webflux;

import org.jspecify.annotations.NullMarked;
