package dev.ratelimit.sample;

import java.nio.charset.StandardCharsets;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * A slow export, as CSV reports often are: at most 2 exports of one client run at once, on every instance together,
 * however long each takes (a concurrency limit). A request holds its lease until its streamed response ends, or the
 * client goes away; its instance renews the lease while it runs, and the lease of an instance killed mid-export
 * expires one lease time ({@code sample.exports.lease-time}, 30 s) after its last renewal.
 */
@RestController
class ExportController {

	static final String LIMIT = "exports";

	static final long AT_ONCE = 2;

	/** A CSV row of {@code id} every 100 ms for {@code seconds} seconds. */
	@GetMapping(path = "/api/exports/{id}", produces = "text/csv")
	@RateLimited(name = LIMIT, algorithm = "concurrency", limit = AT_ONCE, window = "${sample.exports.lease-time:30s}",
			key = ApiKey.EXPRESSION)
	StreamingResponseBody export(@PathVariable String id, @RequestParam(defaultValue = "5") int seconds) {
		long rows = Math.max(1, seconds * 10L);
		return (out) -> {
			for (long row = 1; row <= rows; row++) {
				out.write((id + "," + row + "\n").getBytes(StandardCharsets.US_ASCII));
				out.flush();
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		};
	}

}
