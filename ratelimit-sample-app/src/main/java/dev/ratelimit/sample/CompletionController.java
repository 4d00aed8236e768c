package dev.ratelimit.sample;

import dev.ratelimit.spring.RateLimited;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A budget of tokens per day, as an LLM gateway keeps one: what a completion costs is known only once it is done.
 * Each call reserves a provisional 500 tokens, and is settled by the tokens its result says it used: a short answer
 * gives the rest back, a long one is charged the difference. The call that crosses the budget completes; the next
 * ones are refused until the bucket has refilled the debt.
 */
@RestController
class CompletionController {

	static final String BUDGET = "llm-tokens";

	static final long TOKENS_PER_DAY = 10_000;

	record Usage(long promptTokens, long completionTokens) {

		public long totalTokens() {
			return this.promptTokens + this.completionTokens;
		}

	}

	record Completion(String text, Usage usage) {
	}

	/** A stand-in for a model: answers {@code words} words, a token each, after a prompt of 20 tokens. */
	@PostMapping("/api/completions")
	@RateLimited(name = BUDGET, algorithm = "token-bucket", limit = TOKENS_PER_DAY, window = "1d", cost = 500,
			key = ApiKey.EXPRESSION, settleCost = "#result.usage().totalTokens()")
	Completion complete(@RequestParam(defaultValue = "50") int words) {
		return new Completion("lorem ".repeat(Math.max(0, words)).trim(), new Usage(20, Math.max(0, words)));
	}

}
