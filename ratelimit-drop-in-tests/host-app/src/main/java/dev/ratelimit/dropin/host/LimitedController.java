package dev.ratelimit.dropin.host;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The application's endpoint; the checks put a filter rule of the starter on it, by configuration only. */
@RestController
class LimitedController {

	@GetMapping("/limited")
	String limited() {
		return "limited";
	}

}
