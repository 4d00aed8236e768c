package dev.ratelimit.spring.gateway;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.core.Algorithm;
import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.spring.FailurePolicy;
import dev.ratelimit.spring.LimitMode;
import dev.ratelimit.spring.gateway.webflux.RateLimitedGatewayFilterFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A route's {@code RateLimited} arguments, bound as the gateway binds them and read once the route is known: a name
 * the filter does not take, or a value not of its argument's type, is refused naming the route, the argument and the
 * value, where the gateway's own binding would ignore the name, or fail without naming the route.
 */
class RouteArgumentsTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			algorithm         | leaky-bucket | fixed-window, sliding-log, sliding-window-counter, token-bucket, concurrency
			mode              | loud         | enforce, shadow
			failure-policy    | retry        | fail-open, fail-closed, fail-local
			period            | fortnight    | day, week, month, year
			first-day-of-week | someday      | monday, tuesday, wednesday, thursday, friday, saturday, sunday
			""")
	void aValueNoneOfItsArgumentsValuesIsRefusedWithTheValuesAsRoutesWriteThem(String argument, String value,
			String values) {
		assertThatIllegalArgumentException().isThrownBy(() -> read(argument, value))
			.withMessage("Invalid rate limit of route 'api' (RateLimited) (" + argument + "): '" + value
					+ "' is none of " + values);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			window       | banana          | is not a duration, such as 500ms, 1s, 1m, 1h or 1d
			limit        | five            | is not a whole number
			cost         | 1.5             | is not a whole number
			zone         | Mars/Olympus    | is not a time zone: an IANA id such as Europe/Berlin, or UTC
			key-resolver | userKeyResolver | is not a KeyResolver: name a bean of the application, "#{@beanName}"
			""")
	void aValueThatCannotBeReadAsItsArgumentsTypeIsRefusedNamingIt(String argument, String value, String why) {
		assertThatIllegalArgumentException().isThrownBy(() -> read(argument, value))
			.withMessage("Invalid rate limit of route 'api' (RateLimited) (" + argument + "): '" + value + "' " + why);
	}

	@Test
	void anArgumentTheFilterDoesNotTakeIsRefusedWithThoseItTakes() {
		assertThatIllegalArgumentException().isThrownBy(() -> read("limt", "5"))
			.withMessage("Invalid rate limit of route 'api' (RateLimited): it has no argument 'limt' (the filter"
					+ " takes name, algorithm, limit, window, period, zone, first-day-of-week, capacity, cost, mode,"
					+ " failure-policy, usage, key, key-resolver)");
		// a property of the configuration that is no argument: the gateway sets it
		assertThatIllegalArgumentException().isThrownBy(() -> read("route-id", "other"))
			.withMessageContaining("it has no argument 'route-id'");
		// the starter's RequestRateLimiter arguments, on the wrong filter
		assertThatIllegalArgumentException().isThrownBy(() -> read("ratelimit.limit", "5"))
			.withMessageContaining("it has no argument 'ratelimit.limit'");
	}

	@Test
	void aFourthValueOfTheShortcutFormIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> read("_genkey_3", "fail-open"))
			.withMessageStartingWith("Invalid rate limit of route 'api' (RateLimited): 'fail-open' is one value too"
					+ " many for the shortcut form, which takes limit, window, algorithm in this order");
	}

	@Test
	void argumentsAreReadInEveryFormOfTheirNamesThatBootsBinderTakes() {
		RateLimitedGatewayFilterFactory.Config config = bound(Map.of("algorithm", "FIXED_WINDOW", "limit", "100",
				"failurePolicy", "fail-closed", "first_day_of_week", "sunday", "period", "week", "Zone",
				"Europe/Berlin", "mode", "shadow", "usage", "month in Europe/Berlin", "key", "#header('X-Api-Key')"));
		config.readArguments("api");
		assertThat(config.getAlgorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
		assertThat(config.getLimit()).isEqualTo(100L);
		assertThat(config.getFailurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(config.getFirstDayOfWeek()).isEqualTo(DayOfWeek.SUNDAY);
		assertThat(config.getPeriod()).isEqualTo(CalendarPeriod.Unit.WEEK);
		assertThat(config.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
		assertThat(config.getMode()).isEqualTo(LimitMode.SHADOW);
		assertThat(config.getUsage()).isEqualTo("month in Europe/Berlin");
		assertThat(config.getKey()).isEqualTo("#header('X-Api-Key')");
		assertThat(bound(Map.of("window", "1h"))).satisfies((read) -> {
			read.readArguments("api");
			assertThat(read.getWindow()).isEqualTo(Duration.ofHours(1));
		});
	}

	private static void read(String argument, String value) {
		bound(Map.of(argument, value)).readArguments("api");
	}

	/** The configuration as Gateway Server WebFlux binds a route's arguments to it. */
	private static RateLimitedGatewayFilterFactory.Config bound(Map<String, String> arguments) {
		return new Binder(new MapConfigurationPropertySource(new LinkedHashMap<>(arguments)))
			.bindOrCreate("", Bindable.of(RateLimitedGatewayFilterFactory.Config.class));
	}

}
