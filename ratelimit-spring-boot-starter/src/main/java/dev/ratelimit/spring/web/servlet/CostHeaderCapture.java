package dev.ratelimit.spring.web.servlet;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * The response as the application sees it when a rule settles its cost by a header ({@code settle-cost-header}): the
 * header's value is kept here, for the charge, and never reaches the client (the application reads its own value
 * back as usual). Before the response's body or error is written, the cost is settled ({@code beforeBody}, once), so
 * that the request that crosses a budget is answered only once its debt is recorded.
 */
final class CostHeaderCapture extends HttpServletResponseWrapper {

	private final Set<String> names;

	private final Map<String, String> values = new ConcurrentHashMap<>();

	private final AtomicBoolean settled = new AtomicBoolean();

	private final Runnable beforeBody;

	/**
	 * @param names the cost headers, compared ignoring case
	 * @param beforeBody settles the cost, run once before the body is written
	 */
	CostHeaderCapture(HttpServletResponse response, Set<String> names, Runnable beforeBody) {
		super(response);
		this.names = names;
		this.beforeBody = beforeBody;
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		settle();
		return super.getOutputStream();
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		settle();
		return super.getWriter();
	}

	@Override
	public void flushBuffer() throws IOException {
		settle();
		super.flushBuffer();
	}

	@Override
	public void sendError(int sc, @Nullable String msg) throws IOException {
		settle();
		super.sendError(sc, msg);
	}

	@Override
	public void sendError(int sc) throws IOException {
		settle();
		super.sendError(sc);
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		settle();
		super.sendRedirect(location);
	}

	private void settle() {
		if (this.settled.compareAndSet(false, true)) {
			this.beforeBody.run();
		}
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
