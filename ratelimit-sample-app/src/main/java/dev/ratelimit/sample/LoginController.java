package dev.ratelimit.sample;

import java.util.Map;

import dev.ratelimit.spring.RateLimited;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Failed login attempts, limited per username whatever address they come from: the defence against guessing one
 * account's password, which never locks out a user who keeps logging in successfully. A sliding log, because it is
 * exact: a fixed window of 5 per minute would let an attacker try 10 passwords within a second around each minute
 * boundary.
 */
@RestController
class LoginController {

	record Login(String username, boolean authenticated) {
	}

	/** The demo's only account. */
	private static final Map<String, String> PASSWORDS = Map.of("alice", "wonderland");

	/**
	 * Only failed attempts count (the 401s), exactly: an attempt reserves its unit when it is admitted, and gives it
	 * back when it succeeds, so that concurrent wrong passwords never get more than 5 checked.
	 */
	@PostMapping("/auth/login")
	@RateLimited(name = "login", algorithm = "sliding-log", limit = 5, window = "1m", key = "#username",
			chargeOnStatus = 401, reserve = true)
	ResponseEntity<?> login(@RequestParam String username, @RequestParam String password) {
		if (password.equals(PASSWORDS.get(username))) {
			return ResponseEntity.ok(new Login(username, true));
		}
		return ResponseEntity.of(ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED, "Bad credentials")).build();
	}

}
