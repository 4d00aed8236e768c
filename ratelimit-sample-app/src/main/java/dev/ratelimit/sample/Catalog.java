package dev.ratelimit.sample;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The sample's data: a few products. */
final class Catalog {

	record Item(String id, String name, String description) {
	}

	static final List<Item> ITEMS = List.of(
			new Item("1", "Redis in Action", "A book on Redis data structures and their uses"),
			new Item("2", "Token bucket", "A rate-limiting algorithm that allows bursts up to its capacity"),
			new Item("3", "Sliding log", "An exact rate-limiting algorithm: one sorted-set entry per request"));

	private Catalog() {
	}

	static Optional<Item> find(String id) {
		return ITEMS.stream().filter((item) -> item.id().equals(id)).findFirst();
	}

	static List<Item> search(String query) {
		String needle = query.toLowerCase(Locale.ROOT);
		return ITEMS.stream()
			.filter((item) -> (item.name() + " " + item.description()).toLowerCase(Locale.ROOT).contains(needle))
			.toList();
	}

}
