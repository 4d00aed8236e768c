package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Usage on Redis ({@code docs/ALGORITHMS.md}, "Usage"): what a call's script needs to record it (usage.lua's KEYS and
 * ARGV, after the limits'), and the pages read back (usage_page.lua), from one set, or on a Redis Cluster from the
 * sets of every hash slot.
 */
final class RedisUsage {

	/** The Cluster's slot reads in flight at once: enough to keep a pipelining client busy, few replies held. */
	private static final int SLOT_READS_IN_FLIGHT = 256;

	/** Clients first by units, most first, then by the id's UTF-8 bytes, descending: the order of ZREVRANGE. */
	static final Comparator<ClientUsage> LARGEST_FIRST = Comparator.comparingLong(ClientUsage::units)
		.thenComparing((ClientUsage usage) -> usage.clientId().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned)
		.reversed();

	private final RedisKeys keys;

	/** Whether usage is kept per hash slot (a Redis Cluster). */
	private final boolean perSlot;

	RedisUsage(RedisKeys keys, boolean perSlot) {
		this.keys = keys;
		this.perSlot = perSlot;
	}

	boolean perSlot() {
		return this.perSlot;
	}

	/**
	 * Appends usage.lua's KEYS and ARGV for the limits of a call that record usage, if any: the client id once, then
	 * three keys and seven values per limit, then their number. The periods are found around the call's time, its
	 * {@code ARGV[1]}, or this JVM's clock when that is -1 (the server's {@code TIME}).
	 */
	void append(String clientId, List<LimitRequest> limits, List<String> keys, List<String> args) {
		int recording = 0;
		for (int i = 0; i < limits.size(); i++) {
			LimitDefinition limit = limits.get(i).definition();
			UsageRecording usage = limit.usage();
			if (usage == null) {
				continue;
			}
			if (recording == 0) {
				args.add(clientId);
			}
			recording++;
			long clockMs = Long.parseLong(args.get(0));
			long[] b = usage.period().usageBounds((clockMs >= 0) ? clockMs : System.currentTimeMillis());
			int slot = this.perSlot ? RedisKeys.slot(clientId) : -1;
			for (int p = 0; p < 3; p++) {
				keys.add(this.keys.usageKey(limit.name(), b[p], b[p + 1], slot));
			}
			args.add(Integer.toString(i + 1));
			for (long start : b) {
				// hexadecimal: the script reads it with strtoul rather than strtod (usage.lua)
				args.add(Long.toHexString(start));
			}
			args.add(Integer.toString(cap(usage)));
		}
		if (recording > 0) {
			args.add(Integer.toString(recording));
		}
	}

	/** The cap of one set: the limit's, or on a Cluster its share per slot, with room for clients unevenly spread. */
	private int cap(UsageRecording usage) {
		if (!this.perSlot) {
			return usage.maxClients();
		}
		return (int) ((2L * usage.maxClients() + ClusterSlots.SLOTS - 1) / ClusterSlots.SLOTS) + 16;
	}

	/**
	 * A page of the limit's usage in the period that holds {@code clockMs}, or the one before it.
	 * @param clockMs the reader's time in ms
	 */
	Usage read(ScriptExecutor executor, LimitDefinition limit, Usage.Period period, int page, int size, long clockMs) {
		UsageRecording usage = limit.usage();
		if (usage == null) {
			throw Requests.noUsage(limit);
		}
		long[] b = usage.period().usageBounds(clockMs);
		int at = (period == Usage.Period.CURRENT) ? 1 : 0;
		long start = b[at];
		long end = b[at + 1];
		Page read;
		if (!this.perSlot) {
			read = Page.of(executor.execute(LuaScript.usagePage(), List.of(this.keys.usageKey(limit.name(), start, end, -1)),
					List.of(Long.toString((long) page * size), Integer.toString(size))));
		}
		else {
			read = acrossSlots(executor, limit.name(), start, end, (int) Math.min((long) (page + 1) * size, cap(usage)));
			List<ClientUsage> all = read.entries();
			int from = (int) Math.min((long) page * size, all.size());
			read = new Page(read.clients(), read.overflow(), all.subList(from, Math.min(from + size, all.size())));
		}
		return new Usage(limit.name(), Instant.ofEpochMilli(start), Instant.ofEpochMilli(end), read.clients(),
				read.overflow(), page, size, read.entries());
	}

	/** The largest {@code top} clients of every slot's set, merged largest first, with every slot's counts. */
	private Page acrossSlots(ScriptExecutor executor, String name, long start, long end, int top) {
		long clients = 0;
		long overflow = 0;
		List<ClientUsage> entries = new ArrayList<>();
		List<String> args = List.of("0", Integer.toString(top));
		for (int first = 0; first < ClusterSlots.SLOTS; first += SLOT_READS_IN_FLIGHT) {
			List<CompletableFuture<List<Long>>> reads = new ArrayList<>(SLOT_READS_IN_FLIGHT);
			for (int slot = first; slot < first + SLOT_READS_IN_FLIGHT; slot++) {
				reads.add(executor.executeAsync(LuaScript.usagePage(), List.of(this.keys.usageKey(name, start, end, slot)), args)
					.toCompletableFuture());
			}
			for (CompletableFuture<List<Long>> read : reads) {
				Page page = Page.of(joined(read));
				clients += page.clients();
				overflow += page.overflow();
				entries.addAll(page.entries());
			}
		}
		entries.sort(LARGEST_FIRST);
		return new Page(clients, overflow, entries);
	}

	/** The reply, or what the call threw, as {@link ScriptExecutor#execute} throws it. */
	private static List<Long> joined(CompletableFuture<List<Long>> read) {
		try {
			return read.join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/** usage_page.lua's reply. */
	private record Page(long clients, long overflow, List<ClientUsage> entries) {

		static Page of(List<Long> reply) {
			if (reply.size() < 2) {
				throw new IllegalStateException("usage script replied " + reply);
			}
			List<ClientUsage> entries = new ArrayList<>();
			int at = 2;
			while (at < reply.size()) {
				int length = reply.get(at + 1).intValue();
				entries.add(new ClientUsage(ScriptReplies.text(reply, at + 2, length), reply.get(at)));
				at += 2 + length;
			}
			return new Page(reply.get(0), reply.get(1), entries);
		}

	}

}
