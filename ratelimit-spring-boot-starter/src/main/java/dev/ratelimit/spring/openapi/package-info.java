/**
 * The limits in springdoc-openapi's document: the 429 answer and the rate-limit header fields of every operation a
 * limit surely covers. Loaded only where springdoc-openapi is.
 */
@NullMarked
package dev.ratelimit.spring.openapi;

import org.jspecify.annotations.NullMarked;
