package dev.ratelimit.spring.limits;

/**
 * The web stack an application runs on, as its key expressions see it: what {@code #request} is there, so that an
 * expression calling a method that type lacks (a servlet method on WebFlux's {@code ServerHttpRequest}, say) stops
 * startup instead of failing on every request and keying every client by its address.
 *
 * @param name the stack's name for messages: {@code Spring MVC}, {@code Spring WebFlux}
 * @param requestType the type of {@code #request}: {@code HttpServletRequest}, {@code ServerHttpRequest}
 */
public record RequestStack(String name, Class<?> requestType) {
}
