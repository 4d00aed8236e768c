package dev.ratelimit.spring.test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * A client's tag as docs/RUNTIME-CHANGES.md and the core's key layout describe it, computed here on its own: the
 * base64url (no padding) of the first 9 bytes of the SHA-256 of the client key ({@code key:<value>}).
 */
public final class ClientTags {

	private ClientTags() {
	}

	public static String of(String clientKey) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(clientKey.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 9));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
