package dev.ratelimit.spring.gateway;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The test gateways' application: auto-configuration only; routes come from properties or the tests' DSL beans. */
@SpringBootConfiguration
@EnableAutoConfiguration
class GatewayTestApplication {

}
