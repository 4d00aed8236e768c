/**
 * Real Redis servers for the project's tests: a standalone server (Testcontainers' {@code redis:7.2}, or a local
 * {@code redis-server} process), a Redis Cluster and a Sentinel deployment, each started for the caller and stopped
 * when closed.
 */
@NullMarked
package dev.ratelimit.test;

import org.jspecify.annotations.NullMarked;
