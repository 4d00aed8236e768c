package dev.ratelimit.sample;

import java.time.Duration;

import dev.ratelimit.core.RateLimiter;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Controller;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * The playground: {@code GET /playground} is a page (plain HTML and JavaScript in the jar, no CDN) that draws what
 * {@code GET /playground/run} answers: one traffic pattern through the application's {@link RateLimiter} for the
 * four algorithms ({@link Playground}). Inputs are checked as configuration is: a bad one is a 400 problem naming
 * it, never a 500. Not under {@code /api}, so the API's rules leave it alone.
 */
@Controller
class PlaygroundController {

	private static final Duration MAX_WINDOW = Duration.ofDays(1);

	private final Playground playground;

	PlaygroundController(RateLimiter limiter) {
		this.playground = new Playground(limiter);
	}

	@GetMapping("/playground")
	String page() {
		return "forward:/playground/index.html";
	}

	/**
	 * @param pattern {@code boundary-burst}, {@code steady-overload}, {@code burst} ({@code count} requests at
	 * {@code at}) or {@code rate} ({@code perSecond} for {@code seconds})
	 */
	@GetMapping(path = "/playground/run", produces = "application/json")
	@ResponseBody
	Playground.Run run(@RequestParam MultiValueMap<String, String> query,
			@RequestParam(defaultValue = "10") long limit, @RequestParam(defaultValue = "1s") String window,
			@RequestParam(required = false) Long capacity, @RequestParam(defaultValue = "1") long cost,
			@RequestParam(defaultValue = "boundary-burst") String pattern,
			@RequestParam(defaultValue = "30") int count, @RequestParam(defaultValue = "1000") long at,
			@RequestParam(defaultValue = "15") double perSecond, @RequestParam(defaultValue = "5") int seconds) {
		// a field left empty or given twice would otherwise silently run with a default or the first value
		query.forEach((name, values) -> {
			require(values.size() == 1, name, "is given " + values.size() + " times");
			require(!values.get(0).isBlank(), name, "is empty");
		});
		Duration windowDuration = window(window);
		require(windowDuration.compareTo(MAX_WINDOW) <= 0, "window",
				"must be at most 1d in the playground (its state would live that long if a run were cut short)");
		Playground.Traffic traffic = switch (pattern) {
			case "boundary-burst" -> Playground.boundaryBurst(windowDuration.toMillis());
			case "steady-overload" -> Playground.steadyOverload();
			case "burst" -> {
				require(count >= 1 && count <= Playground.MAX_REQUESTS, "count",
						"must be between 1 and " + Playground.MAX_REQUESTS);
				require(at >= 0 && at <= Playground.MAX_SPAN_MS, "at", "must be between 0 and " + Playground.MAX_SPAN_MS + " ms");
				yield Playground.burst(count, at);
			}
			case "rate" -> {
				require(perSecond > 0 && seconds >= 1 && seconds * 1000L <= Playground.MAX_SPAN_MS, "perSecond",
						"must be above 0, for 1 to " + Playground.MAX_SPAN_MS / 1000 + " seconds");
				require(perSecond * seconds <= Playground.MAX_REQUESTS, "perSecond",
						"times seconds must be at most " + Playground.MAX_REQUESTS + " requests");
				require(Math.round(perSecond * seconds) >= 1, "perSecond", "times seconds must make at least 1 request");
				yield Playground.rate(perSecond, seconds);
			}
			default -> throw new InvalidInput("pattern", "must be boundary-burst, steady-overload, burst or rate");
		};
		try {
			return this.playground.run(limit, windowDuration, (capacity != null) ? capacity : limit, cost, traffic);
		}
		catch (IllegalArgumentException ex) {
			// LimitDefinition's own message, as configuration reports it
			throw new InvalidInput(null, ex.getMessage());
		}
	}

	/** A window as configuration reads it: a duration with its unit ({@code 1s}, {@code 500ms}, {@code PT1M}). */
	private static Duration window(String value) {
		if (value.trim().matches("-?\\d+")) {
			throw new InvalidInput("window", "'" + value + "' has no unit; write it as 60s, 500ms, 1m or PT1M");
		}
		try {
			return DurationStyle.detectAndParse(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidInput("window", "'" + value + "' is not a duration; write it as 60s, 500ms, 1m or PT1M");
		}
	}

	private static void require(boolean valid, String field, String message) {
		if (!valid) {
			throw new InvalidInput(field, message);
		}
	}

	@ExceptionHandler(InvalidInput.class)
	@ResponseBody
	ProblemDetail invalid(InvalidInput ex) {
		return problem(ex.getMessage());
	}

	/** {@code limit=abc}: the same problem, naming the parameter. */
	@ExceptionHandler(MethodArgumentTypeMismatchException.class)
	@ResponseBody
	ProblemDetail notANumber(MethodArgumentTypeMismatchException ex) {
		return problem(ex.getName() + " '" + ex.getValue() + "' is not "
				+ ((ex.getRequiredType() == double.class) ? "a number" : "a whole number in range"));
	}

	private static ProblemDetail problem(@Nullable String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		problem.setTitle("Invalid playground input");
		return problem;
	}

	/** A bad input: a 400 naming it. */
	static final class InvalidInput extends RuntimeException {

		InvalidInput(@Nullable String field, @Nullable String message) {
			super((field != null) ? field + " " + message : message);
		}

	}

}
