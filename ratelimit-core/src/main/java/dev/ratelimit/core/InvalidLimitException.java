package dev.ratelimit.core;

/**
 * A {@link LimitDefinition} or {@link LimitRequest} value out of range, naming the field at fault, so that configuration built on the core
 * can name its own property without reading the message.
 */
public class InvalidLimitException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String field;

	/**
	 * @param field the component at fault: {@code name}, {@code limit}, {@code window}, {@code capacity} or
	 * {@code usage} of {@link LimitDefinition}, or {@code cost} of {@link LimitRequest}
	 * @param message what is wrong, and what would be right
	 */
	public InvalidLimitException(String field, String message) {
		super(message);
		this.field = field;
	}

	/**
	 * The component at fault: {@code name}, {@code limit}, {@code window}, {@code capacity}, {@code usage} or
	 * {@code cost}.
	 */
	public String getField() {
		return this.field;
	}

}
