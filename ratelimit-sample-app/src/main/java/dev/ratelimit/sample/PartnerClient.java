package dev.ratelimit.sample;

import dev.ratelimit.spring.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/**
 * Calls the partner's API: at most 5 calls per second from all instances together (no key: calls made outside HTTP
 * requests share one budget). A denied call waits for a permit, exactly the decision's retry-after, for up to 10 s.
 */
@Service
class PartnerClient {

	private final ApplicationContext context;

	private volatile @Nullable RestClient rest;

	PartnerClient(ApplicationContext context) {
		this.context = context;
	}

	@RateLimited(name = "partner", algorithm = "token-bucket", limit = 5, window = "1s", maxWait = "10s")
	public @Nullable String quote(String symbol) {
		return rest().get().uri("/partner/quote?symbol={symbol}", symbol).retrieve().body(String.class);
	}

	/** The stand-in partner is this application, on its own port, known once the server has started. */
	@SuppressWarnings("NullAway") // called once the web server has started
	private RestClient rest() {
		RestClient rest = this.rest;
		if (rest == null) {
			int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
			rest = RestClient.create("http://127.0.0.1:" + port);
			this.rest = rest;
		}
		return rest;
	}

}
