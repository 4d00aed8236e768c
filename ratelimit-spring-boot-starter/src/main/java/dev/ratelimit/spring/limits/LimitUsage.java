package dev.ratelimit.spring.limits;

import java.time.DayOfWeek;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.core.CalendarPeriod;
import dev.ratelimit.core.InvalidLimitException;
import dev.ratelimit.core.LimitDefinition;
import dev.ratelimit.core.LimitRequest;
import dev.ratelimit.core.UsageRecording;
import org.jspecify.annotations.Nullable;

/**
 * A limit's {@code usage} (a rule's property, the annotation's attribute): whether and per which period it records
 * the units each client used (docs/ALGORITHMS.md, "Usage"). {@code true}: the limit's own calendar period, else the
 * calendar month in UTC; {@code false} or unset: none; or a period as calendar periods are written,
 * {@code day}, {@code week}, {@code month} or {@code year}, with {@code in <zone>} and for a week
 * {@code from <day>}: {@code month in Europe/Berlin}, {@code week from sunday}.
 */
final class LimitUsage {

	private static final Pattern PERIOD = Pattern
		.compile("(?i)(day|week|month|year)(?:\\s+in\\s+(\\S+))?(?:\\s+from\\s+(\\S+))?");

	private LimitUsage() {
	}

	/**
	 * {@code request} recording usage as {@code value} says.
	 * @param maxClients {@code ratelimit.usage.max-clients}
	 * @throws InvalidLimitException naming {@code usage} for a value that is no period, or a concurrency limit
	 */
	static LimitRequest apply(LimitRequest request, @Nullable String value, int maxClients) {
		UsageRecording usage = parse(request.definition(), value, maxClients);
		return (usage != null) ? recording(request, usage) : request;
	}

	/**
	 * {@code request} recording {@code usage}: a plan's shape of a limit records what the limit records, in one set per
	 * limit name and period.
	 * @throws InvalidLimitException naming {@code usage} for a concurrency limit
	 */
	static LimitRequest recording(LimitRequest request, @Nullable UsageRecording usage) {
		if (usage == null) {
			return request;
		}
		return new LimitRequest(request.definition().withUsage(usage), request.cost(), request.shadow(),
				request.lease());
	}

	private static @Nullable UsageRecording parse(LimitDefinition limit, @Nullable String value, int maxClients) {
		String text = (value != null) ? value.trim() : "";
		if (text.isEmpty() || text.equalsIgnoreCase("false")) {
			return null;
		}
		if (text.equalsIgnoreCase("true")) {
			return new UsageRecording(limit.defaultUsagePeriod(), maxClients);
		}
		Matcher period = PERIOD.matcher(text);
		try {
			if (period.matches() && (period.group(3) == null || period.group(1).equalsIgnoreCase("week"))) {
				CalendarPeriod.Unit unit = CalendarPeriod.unit(period.group(1));
				return new UsageRecording(new CalendarPeriod(unit,
						(period.group(2) != null) ? CalendarPeriod.zone(period.group(2)) : CalendarPeriod.DEFAULT_ZONE,
						(period.group(3) != null) ? DayOfWeek.valueOf(period.group(3).toUpperCase(Locale.ROOT))
								: CalendarPeriod.DEFAULT_FIRST_DAY_OF_WEEK),
						maxClients);
			}
		}
		catch (IllegalArgumentException ex) {
			throw invalid(limit, text, ": " + ex.getMessage());
		}
		throw invalid(limit, text, "");
	}

	private static InvalidLimitException invalid(LimitDefinition limit, String value, String reason) {
		return new InvalidLimitException("usage", "usage of rate limit '" + limit.name() + "' must be true, false or a"
				+ " calendar period ('month', 'day in Europe/Berlin', 'week from sunday'), but was '" + value + "'"
				+ reason);
	}

}
