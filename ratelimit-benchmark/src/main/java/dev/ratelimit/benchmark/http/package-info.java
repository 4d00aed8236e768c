/**
 * The benchmark's HTTP part: an application with the starter driven by {@code wrk}, and calls that wait for a permit.
 */
@NullMarked
package dev.ratelimit.benchmark.http;

import org.jspecify.annotations.NullMarked;
