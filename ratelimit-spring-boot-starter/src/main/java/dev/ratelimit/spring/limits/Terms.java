package dev.ratelimit.spring.limits;

import java.util.Locale;

/**
 * Enum values as configuration writes them ({@code TOKEN_BUCKET} is {@code token-bucket}): one rule for the
 * endpoint's views, the observations' key values, the overrides' descriptions and the AOT conditions. Not an API.
 */
public final class Terms {

	private Terms() {
	}

	/** {@code value}'s name in lower case, {@code _} written {@code -}. */
	public static String of(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
