package dev.ratelimit.spring.actuate.endpoint;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a write to the {@code ratelimits} endpoint that carries a field its operation does not take. Actuator
 * hands an operation the body's fields and the query's parameters by name and drops the others, so a misspelt field
 * ({@code {"limt": 5}}) or one of another version would be answered 200 having changed nothing, or only the fields
 * it recognised. The fields known are the operation's parameters, read from the operation itself.
 */
final class KnownFields implements OperationInvokerAdvisor {

	private static final EndpointId ENDPOINT = EndpointId.of("ratelimits");

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!ENDPOINT.equals(endpointId) || operationType != OperationType.WRITE) {
			return invoker;
		}
		Set<String> known = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
		String fields = parameters.stream()
			.filter((parameter) -> parameter.getAnnotation(Selector.class) == null)
			.map(OperationParameter::getName)
			.collect(Collectors.joining(", "));
		return (context) -> {
			List<String> unknown = context.getArguments().keySet().stream().filter((name) -> !known.contains(name))
				.sorted()
				.toList();
			if (!unknown.isEmpty()) {
				return Responses.badRequest(((unknown.size() == 1) ? "Unknown field '" + unknown.get(0) + "'"
						: "Unknown fields '" + String.join("', '", unknown) + "'") + ": nothing changed. The fields of"
						+ " a POST to the ratelimits endpoint are " + fields);
			}
			return invoker.invoke(context);
		};
	}

}
