package dev.ratelimit.dropin.boot3;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An ordinary Spring Boot 3.5 application, as a team on Boot 3 would write it, whose pom adds the starter. The
 * starter does not support Boot 3: {@code BootThreeIT} runs this and expects it to stop at startup, with one
 * sentence naming the Spring Boot versions the starter needs.
 */
@SpringBootApplication
public class BootThreeApplication {

	public static void main(String[] args) {
		SpringApplication.run(BootThreeApplication.class, args);
	}

}
