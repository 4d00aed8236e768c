package dev.ratelimit.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A minimal RESP client for the test servers: one command per new connection, so that it works on a server paused,
 * restarted or failing over, where a pooled client would hold stale connections. Not for the code under test, which
 * uses Lettuce or Jedis.
 */
final class Resp {

	private Resp() {
	}

	/** Sends one command and returns the raw reply's first line, e.g. {@code "+OK"}. */
	static String firstLine(String host, int port, String... words) {
		return exchange(host, port, words, Resp::readLine);
	}

	/**
	 * Sends one command in RESP on a new connection to {@code host:port} and returns the whole reply: a
	 * {@code String} (simple or bulk string), a {@code Long}, a {@code List} of replies, or {@code null}.
	 * @throws IllegalStateException with Redis' message when it answers an error, e.g. {@code MOVED 1234 ...}
	 */
	@SuppressWarnings("NullAway") // T is @Nullable Object, which NullAway sees in JSpecify mode only
	static @Nullable Object call(String host, int port, String... words) {
		return exchange(host, port, words, Resp::readReply);
	}

	private interface ReplyReader<T extends @Nullable Object> {

		T read(InputStream in) throws IOException;

	}

	private static <T extends @Nullable Object> T exchange(String host, int port, String[] words,
			ReplyReader<T> reader) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			socket.setSoTimeout(2000);
			StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
			for (String word : words) {
				request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return reader.read(new BufferedInputStream(socket.getInputStream()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int ch = in.read(); ch != -1 && ch != '\r'; ch = in.read()) {
			line.write(ch);
		}
		return line.toString(StandardCharsets.UTF_8);
	}

	private static @Nullable Object readReply(InputStream in) throws IOException {
		String line = readLine(in);
		if (in.read() != '\n' || line.isEmpty()) {
			throw new IOException("malformed RESP reply: '" + line + "'");
		}
		String rest = line.substring(1);
		switch (line.charAt(0)) {
			case '+':
				return rest;
			case '-':
				throw new IllegalStateException(rest);
			case ':':
				return Long.parseLong(rest);
			case '$': {
				int length = Integer.parseInt(rest);
				if (length < 0) {
					return null;
				}
				byte[] bulk = in.readNBytes(length + 2);
				if (bulk.length != length + 2) {
					throw new IOException("RESP bulk string cut short");
				}
				return new String(bulk, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(rest);
				if (count < 0) {
					return null;
				}
				List<Object> elements = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					try {
						elements.add(readReply(in));
					}
					catch (IllegalStateException error) {
						elements.add(error);
					}
				}
				return elements;
			}
			default:
				throw new IOException("unexpected RESP reply: '" + line + "'");
		}
	}

}
