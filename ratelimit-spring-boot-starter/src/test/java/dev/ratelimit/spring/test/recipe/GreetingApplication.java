package dev.ratelimit.spring.test.recipe;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application of docs/TESTING.md: one endpoint with a limit ({@link GreetingController}), tested as an application
 * of a user's would be, with the limits on (in memory, on a Redis the tests start) and off, time moved by the tests.
 */
@SpringBootApplication
public class GreetingApplication {

}
