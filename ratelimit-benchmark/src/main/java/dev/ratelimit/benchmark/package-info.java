/**
 * The benchmark of the limiters (docs/BENCHMARKS.md): the Java API against Redis round trips and Bucket4j, the
 * offered load, the Redis footprint of a decision, and their tables and chart.
 */
@NullMarked
package dev.ratelimit.benchmark;

import org.jspecify.annotations.NullMarked;
