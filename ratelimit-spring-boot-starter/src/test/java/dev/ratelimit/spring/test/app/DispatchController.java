package dev.ratelimit.spring.test.app;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.spring.RateLimited;

import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Endpoints whose one request goes through several dispatches: an error dispatch after an exception, a forward, an
 * async dispatch. Tests put filter rules on these paths too; each request must be charged once per limit.
 */
@Controller
public class DispatchController {

	@GetMapping("/dispatch/boom")
	@ResponseBody
	@RateLimited(name = "boom-annotated", limit = 10, window = "1m")
	public String boom(@RequestParam(defaultValue = "false") boolean fail) {
		if (fail) {
			throw new IllegalStateException("the controller failed");
		}
		return "no boom";
	}

	@GetMapping("/dispatch/forward")
	@RateLimited(name = "forward-annotated", limit = 10, window = "1m")
	public String forward() {
		return "forward:/dispatch/target";
	}

	@GetMapping("/dispatch/target")
	@ResponseBody
	@RateLimited(name = "target-annotated", limit = 10, window = "1m")
	public String target() {
		return "target";
	}

	@GetMapping("/dispatch/callable")
	@ResponseBody
	@RateLimited(name = "callable-annotated", limit = 10, window = "1m")
	public Callable<String> callable() {
		return () -> "callable";
	}

	@GetMapping("/dispatch/deferred")
	@ResponseBody
	@RateLimited(name = "deferred-annotated", limit = 10, window = "1m")
	public DeferredResult<String> deferred() {
		DeferredResult<String> result = new DeferredResult<>();
		CompletableFuture.runAsync(() -> result.setResult("deferred"));
		return result;
	}

}
