package dev.ratelimit.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ratelimit.spring.RateLimitExceededException;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The outbound demo: {@code POST /demo/partner/burst?calls=20} fires that many calls to the partner at once, from
 * threads of its own (as a job would, outside any HTTP request), through {@link PartnerClient}, which the whole
 * fleet may call 5 times a second; it answers when all are done with when each reached the stand-in partner
 * ({@code GET /partner/quote}). Not under {@code /api}, so the API's rules leave it alone.
 */
@RestController
class PartnerController {

	record Burst(int calls, int arrived, int refused, long firstToLastMs, List<Long> arrivalsMs) {
	}

	private final PartnerClient partner;

	private final PartnerStandIn standIn;

	PartnerController(PartnerClient partner, PartnerStandIn standIn) {
		this.partner = partner;
		this.standIn = standIn;
	}

	/** The stand-in partner: records when each call arrives. */
	@GetMapping(path = "/partner/quote", produces = "text/plain")
	String quote(@RequestParam String symbol) {
		this.standIn.arrived();
		return symbol + " 42.00";
	}

	@PostMapping("/demo/partner/burst")
	Burst burst(@RequestParam(defaultValue = "20") int calls) throws Exception {
		if (calls < 1 || calls > 100) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "calls must be between 1 and 100");
		}
		long start = this.standIn.reset();
		ExecutorService threads = Executors.newFixedThreadPool(calls);
		try {
			List<Future<String>> results = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				results.add(threads.submit(() -> this.partner.quote("ACME")));
			}
			int refused = 0;
			for (Future<String> result : results) {
				try {
					result.get();
				}
				catch (ExecutionException ex) {
					if (!(ex.getCause() instanceof RateLimitExceededException)) {
						throw ex;
					}
					refused++;
				}
			}
			List<Long> arrivals = this.standIn.arrivalsSince(start);
			long span = arrivals.isEmpty() ? 0 : arrivals.get(arrivals.size() - 1) - arrivals.get(0);
			return new Burst(calls, arrivals.size(), refused, span, arrivals);
		}
		finally {
			threads.shutdownNow();
		}
	}

}
