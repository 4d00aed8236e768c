package dev.ratelimit.sample;

/**
 * How the sample tells clients apart: by their {@code X-Api-Key} header, or by IP address when it is absent (the
 * starter's {@code ratelimit.missing-key=client-ip} default). The starter stores only a hash of the key in Redis.
 */
final class ApiKey {

	static final String HEADER = "X-Api-Key";

	/** The client key expression of the sample's {@code @RateLimited} annotations; the filter rule uses the same. */
	static final String EXPRESSION = "#request.getHeader('" + HEADER + "')";

	private ApiKey() {
	}

}
