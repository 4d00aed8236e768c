package dev.ratelimit.core;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Lease ids for {@link LimitRequest#newLeaseId()}: 128 random bits, so that callers on many instances never share one.
 * Not secrets (an operator lists them), so {@link ThreadLocalRandom}, which never blocks a reactive application's
 * event loop as reading {@code /dev/urandom} would.
 */
final class LeaseIds {

	private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

	private LeaseIds() {
	}

	static String next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		byte[] bytes = ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(random.nextLong()).array();
		return BASE64URL.encodeToString(bytes);
	}

}
