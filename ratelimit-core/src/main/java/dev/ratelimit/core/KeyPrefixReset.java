package dev.ratelimit.core;

import java.util.List;

/**
 * {@link RedisRateLimiter#resetAll()}: every client's state under a key prefix deleted in calls of
 * {@code reset_all.lua} that each scan and delete one batch, so that Redis serves other clients between them.
 */
final class KeyPrefixReset {

	/** The {@code COUNT} hint of each {@code SCAN}. */
	private static final int BATCH = 1000;

	private KeyPrefixReset() {
	}

	/**
	 * Deletes the keys of {@code keys}' state pattern, one {@code SCAN} batch a call, until the scan ends.
	 * @return the number of keys deleted
	 * @throws UnsupportedOperationException on a Redis Cluster: a script reaches one node, whose keys are not all
	 */
	static long resetAll(ScriptExecutor executor, RedisKeys keys) {
		String pattern = keys.statePattern();
		long cursor = 0;
		long deleted = 0;
		do {
			List<Long> reply;
			try {
				reply = executor.execute(LuaScript.resetAll(), List.of(),
						List.of(Long.toString(cursor), pattern, Integer.toString(BATCH)));
			}
			catch (RuntimeException ex) {
				if (String.valueOf(ex.getMessage()).contains("not supported on a Redis Cluster")) {
					throw new UnsupportedOperationException("Resetting every client's state is not supported on a "
							+ "Redis Cluster: reset clients one by one (RateLimiter.reset)", ex);
				}
				throw ex;
			}
			if (reply.size() != 2) {
				throw new IllegalStateException("reset_all script replied " + reply);
			}
			cursor = reply.get(0);
			deleted += reply.get(1);
		}
		while (cursor != 0);
		return deleted;
	}

}
