package dev.ratelimit.spring.web.servlet;

import dev.ratelimit.spring.test.app.RateLimitTestApplication;
import dev.ratelimit.spring.web.BudgetContract;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** {@link BudgetContract} on Spring MVC. */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "ratelimit.key-prefix=http-budget-mvc:")
class MvcBudgetIntegrationTests extends BudgetContract {

}
