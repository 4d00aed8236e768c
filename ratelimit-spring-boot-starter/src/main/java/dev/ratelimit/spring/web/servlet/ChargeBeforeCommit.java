package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * The response as the application sees it under rules charged by its answer: before the response's body, error or
 * redirect is written, the request is charged once ({@code charge}, given the status), so that a client that has its
 * answer finds the charge recorded for its next request; the values of cost headers ({@code settle-cost-header}) are
 * kept here for that charge, and never reach the client (the application reads its own value back as usual).
 */
final class ChargeBeforeCommit extends HttpServletResponseWrapper {

	private final Set<String> names;

	private final Map<String, String> values = new ConcurrentHashMap<>();

	private final AtomicBoolean charged = new AtomicBoolean();

	private final Charge charge;

	/** The request's charge, given its status and the cost headers' values kept here. */
	@FunctionalInterface
	interface Charge {

		void charge(int status, Function<String, @Nullable String> costHeaders);

	}

	/**
	 * @param names the cost headers, compared ignoring case
	 * @param charge charges the request, run once
	 */
	ChargeBeforeCommit(HttpServletResponse response, Set<String> names, Charge charge) {
		super(response);
		this.names = names;
		this.charge = charge;
	}

	/** Charges the request with {@code status}, unless it was charged already. */
	void chargeOnce(int status) {
		if (this.charged.compareAndSet(false, true)) {
			this.charge.charge(status, this::value);
		}
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		chargeOnce(getStatus());
		return super.getOutputStream();
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		chargeOnce(getStatus());
		return super.getWriter();
	}

	@Override
	public void flushBuffer() throws IOException {
		chargeOnce(getStatus());
		super.flushBuffer();
	}

	@Override
	public void sendError(int sc, @Nullable String msg) throws IOException {
		chargeOnce(sc);
		super.sendError(sc, msg);
	}

	@Override
	public void sendError(int sc) throws IOException {
		chargeOnce(sc);
		super.sendError(sc);
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		chargeOnce(HttpServletResponse.SC_FOUND);
		super.sendRedirect(location);
	}

	/** The value the application set for {@code name}, or {@code null}. */
	@Nullable String value(String name) {
		return this.values.get(key(name));
	}

	@Override
	public void setHeader(String name, @Nullable String value) {
		if (!capture(name, value)) {
			super.setHeader(name, value);
		}
	}

	@Override
	public void addHeader(String name, @Nullable String value) {
		if (!capture(name, value)) {
			super.addHeader(name, value);
		}
	}

	@Override
	public void setIntHeader(String name, int value) {
		if (!capture(name, Integer.toString(value))) {
			super.setIntHeader(name, value);
		}
	}

	@Override
	public void addIntHeader(String name, int value) {
		if (!capture(name, Integer.toString(value))) {
			super.addIntHeader(name, value);
		}
	}

	@Override
	public boolean containsHeader(String name) {
		return this.names.contains(name) ? this.values.containsKey(key(name)) : super.containsHeader(name);
	}

	@Override
	public @Nullable String getHeader(String name) {
		return this.names.contains(name) ? this.values.get(key(name)) : super.getHeader(name);
	}

	@Override
	public Collection<String> getHeaders(String name) {
		if (!this.names.contains(name)) {
			return super.getHeaders(name);
		}
		String value = this.values.get(key(name));
		return (value != null) ? List.of(value) : List.of();
	}

	/** Keeps a cost header's value (the last one set); {@code false} for any other header. */
	private boolean capture(String name, @Nullable String value) {
		if (!this.names.contains(name)) {
			return false;
		}
		if (value != null) {
			this.values.put(key(name), value);
		}
		else {
			this.values.remove(key(name));
		}
		return true;
	}

	private static String key(String name) {
		return name.toLowerCase(java.util.Locale.ROOT);
	}

}
