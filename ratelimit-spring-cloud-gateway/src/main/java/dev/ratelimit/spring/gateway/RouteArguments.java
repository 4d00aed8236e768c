package dev.ratelimit.spring.gateway;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ratelimit.spring.limits.Terms;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.ClassUtils;

/**
 * A route filter's arguments, as a route's definition writes them, bound onto its {@link RouteLimit} by Boot's
 * binder, as {@code ratelimit.filter.rules} are (durations such as {@code 1h}, {@code token-bucket} for
 * {@code TOKEN_BUCKET}), but strictly: the gateway's own binding ignores a name it does not know and fails on a value
 * without naming the route, so a misspelt argument would leave the route at the default limit, and a bad value would
 * stop the gateway without saying which route has it.
 */
final class RouteArguments {

	private static final String SHORTCUT_KEY = "_genkey_";

	private RouteArguments() {
	}

	/**
	 * Binds {@code arguments} onto {@code limit}.
	 * @param arguments argument name, as the route writes it, to value; names with dots as nested maps
	 * @param source how messages name the limit, such as {@code route 'api' (RateLimited)}
	 * @throws IllegalArgumentException naming {@code source} and the argument: one the filter does not take (with
	 * those it takes), or a value that is not of the argument's type (with the values an enumeration takes)
	 */
	static void bind(RouteLimit limit, Map<String, @Nullable Object> arguments, String source) {
		Map<String, @Nullable Object> written = new LinkedHashMap<>();
		flatten("", arguments, written);
		Map<ConfigurationPropertyName, String> names = new LinkedHashMap<>();
		Map<String, @Nullable Object> properties = new LinkedHashMap<>();
		for (Map.Entry<String, @Nullable Object> argument : written.entrySet()) {
			String known = known(limit, argument.getKey());
			if (known == null) {
				throw unknown(limit, argument.getKey(), argument.getValue(), source);
			}
			String property = limit.argumentProperty(known);
			names.put(ConfigurationPropertyName.adapt(property, '.'), argument.getKey());
			properties.put(property, argument.getValue());
		}
		Binder binder = new Binder(List.of(new MapConfigurationPropertySource(properties)), null,
				ApplicationConversionService.getSharedInstance());
		try {
			binder.bind(ConfigurationPropertyName.EMPTY, Bindable.ofInstance(limit));
		}
		catch (BindException ex) {
			String name = names.getOrDefault(ex.getName(), ex.getName().toString());
			ConfigurationProperty property = ex.getProperty();
			Object value = (property != null) ? property.getValue() : written.get(name);
			Class<?> type = ex.getTarget().getType().resolve(Object.class);
			throw new IllegalArgumentException("Invalid rate limit of " + source + " (" + name + "): "
					+ quote(value) + " " + notOfType(type, ex), ex);
		}
	}

	/** The argument of {@code limit} that {@code name} is, in any of the forms Boot's binder takes, or null. */
	private static @Nullable String known(RouteLimit limit, String name) {
		ConfigurationPropertyName adapted = ConfigurationPropertyName.adapt(name, '.');
		for (String known : limit.argumentNames()) {
			if (ConfigurationPropertyName.adapt(known, '.').equals(adapted)) {
				return known;
			}
		}
		return null;
	}

	private static IllegalArgumentException unknown(RouteLimit limit, String name, @Nullable Object value,
			String source) {
		String arguments = String.join(", ", limit.argumentNames());
		if (name.startsWith(SHORTCUT_KEY)) {
			return new IllegalArgumentException("Invalid rate limit of " + source + ": " + quote(value) + " is one"
					+ " value too many for the shortcut form, which takes " + String.join(", ", RouteLimit.SHORTCUT)
					+ " in this order (by name, the filter takes " + arguments + ")");
		}
		return new IllegalArgumentException("Invalid rate limit of " + source + ": it has no argument '" + name
				+ "' (the filter takes " + arguments + ")");
	}

	/** What {@code value} is not, and what would be right. */
	private static String notOfType(Class<?> type, BindException ex) {
		if (type.isEnum()) {
			return "is none of " + Arrays.stream(type.getEnumConstants())
				.map((constant) -> Terms.of((Enum<?>) constant))
				.collect(Collectors.joining(", "));
		}
		if (type == Duration.class) {
			return "is not a duration, such as 500ms, 1s, 1m, 1h or 1d";
		}
		if (type == Long.class || type == long.class) {
			return "is not a whole number";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "is neither true nor false";
		}
		if (type == ZoneId.class) {
			return "is not a time zone: an IANA id such as Europe/Berlin, or UTC";
		}
		if (type.isInterface()) {
			// a KeyResolver given as text: the gateway makes a bean of "#{@name}" only
			return "is not a " + type.getSimpleName() + ": name a bean of the application, \"#{@beanName}\"";
		}
		return "is not a " + ClassUtils.getShortName(type) + ": "
				+ NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
	}

	private static String quote(@Nullable Object value) {
		return (value instanceof CharSequence) ? "'" + value + "'" : String.valueOf(value);
	}

	/** Nested maps (names with dots) as names with dots again, so that messages quote them as written. */
	@SuppressWarnings("unchecked")
	private static void flatten(String prefix, Map<String, @Nullable Object> arguments,
			Map<String, @Nullable Object> flat) {
		for (Map.Entry<String, @Nullable Object> entry : arguments.entrySet()) {
			if (entry.getValue() instanceof Map<?, ?> nested) {
				flatten(prefix + entry.getKey() + ".", (Map<String, @Nullable Object>) nested, flat);
			}
			else {
				flat.put(prefix + entry.getKey(), entry.getValue());
			}
		}
	}

}
