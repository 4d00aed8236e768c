package dev.ratelimit.security;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleTracer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Spans of the application's observations: Micrometer Tracing's test tracer, no exporter. */
@Configuration(proxyBeanMethods = false)
class Tracing {

	@Bean
	SimpleTracer simpleTracer() {
		return new SimpleTracer();
	}

	@Bean
	ObservationHandler<Observation.Context> tracingHandler(SimpleTracer tracer) {
		return new DefaultTracingObservationHandler(tracer);
	}

}
