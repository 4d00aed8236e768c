/**
 * Deciding a request or a call against its limits: Redis within its deadline, else the failure policy (fail-open,
 * fail-closed, fail-local), shadow mode, remembered denials, waiting for a permit, and the 429 and 503 answers with their
 * header fields. Knows no web stack and no Redis client.
 */
@NullMarked
package dev.ratelimit.spring.enforce;

import org.jspecify.annotations.NullMarked;
