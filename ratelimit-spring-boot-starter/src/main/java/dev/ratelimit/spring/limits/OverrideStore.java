package dev.ratelimit.spring.limits;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Where the overrides set through the {@code ratelimits} endpoint are kept, so that every instance applies them and a
 * restarted instance starts with them: Redis, or this instance's memory with {@code ratelimit.store=in-memory}.
 */
public interface OverrideStore {

	/**
	 * The overrides stored, unless they are still those of {@code knownVersion}.
	 * @param knownVersion the version last read; any other number (such as {@code -1}) reads them whatever they are
	 * @return the overrides and their version, or {@code null} when the version is still {@code knownVersion}
	 * @throws RuntimeException when the store does not answer, or answers what is not a set of overrides
	 */
	@Nullable Stored read(long knownVersion);

	/**
	 * Stores the override of {@code target}, or removes it when {@code override} is {@code null}, if the overrides are
	 * still those of {@code expectedVersion}: a change is checked against the overrides it was read with, so two
	 * changes made at once on two instances are never both accepted when together they would not be.
	 * @return every override stored after the write, with their new version; {@code null}, and nothing written, when
	 * the version is no longer {@code expectedVersion}
	 * @throws RuntimeException when the store does not answer
	 */
	@Nullable Stored write(OverrideTarget target, @Nullable LimitOverride override, long expectedVersion);

	/** {@link #write(OverrideTarget, LimitOverride, long)} of the limit {@code name}, or of its shape in {@code plan}. */
	default @Nullable Stored write(@Nullable String plan, String name, @Nullable LimitOverride override,
			long expectedVersion) {
		return write(OverrideTarget.inPlan(plan, name), override, expectedVersion);
	}

	/**
	 * The overrides as stored.
	 * @param version changes with every write; no two writes give the same (a store emptied by an eviction starts
	 * from a random version)
	 */
	record Stored(long version, LimitOverrides overrides) {
	}

	/** A store in this instance's memory: the overrides last until it stops. */
	static OverrideStore inMemory() {
		return new OverrideStore() {

			private final Map<String, String> fields = new HashMap<>();

			private long version;

			@Override
			public synchronized @Nullable Stored read(long knownVersion) {
				return (knownVersion == this.version) ? null
						: new Stored(this.version, LimitOverrides.of(this.fields));
			}

			@Override
			public synchronized @Nullable Stored write(OverrideTarget target, @Nullable LimitOverride override,
					long expectedVersion) {
				if (expectedVersion != this.version) {
					return null;
				}
				if (override != null) {
					this.fields.put(LimitOverrides.field(target), override.encode());
				}
				else {
					this.fields.remove(LimitOverrides.field(target));
				}
				this.version++;
				return new Stored(this.version, LimitOverrides.of(this.fields));
			}

		};
	}

}
