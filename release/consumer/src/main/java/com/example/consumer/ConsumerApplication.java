package com.example.consumer;

import dev.ratelimit.core.RateLimiter;
import dev.ratelimit.spring.RateLimited;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The README's first example, compiled against the staged release: an annotation and the limiter's type. */
@SpringBootApplication
@RestController
public class ConsumerApplication {

	@RateLimited(name = "reports", algorithm = "token-bucket", limit = 10, window = "1m", cost = 5)
	@GetMapping("/reports")
	String report() {
		return "report";
	}

	static Class<?> limiterType() {
		return RateLimiter.class;
	}

	public static void main(String[] args) {
		SpringApplication.run(ConsumerApplication.class, args);
	}

}
