package dev.ratelimit.core;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's hash slots: the slot of a hash tag (CRC16, XMODEM, of its bytes, modulo 16,384, as the Cluster
 * specification defines it), and for each slot a short tag that hashes to it, {@code {u<n>}}: a key carrying that tag
 * lives in the slot, beside the keys of every client whose tag hashes there, so that one script call can touch both.
 */
final class ClusterSlots {

	/** The slots of a Redis Cluster. */
	static final int SLOTS = 16_384;

	private static final int[] CRC16_TABLE = new int[256];

	static {
		for (int i = 0; i < 256; i++) {
			int crc = i << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? (crc << 1) ^ 0x1021 : crc << 1;
			}
			CRC16_TABLE[i] = crc & 0xFFFF;
		}
	}

	private ClusterSlots() {
	}

	/** The slot of a key whose hash tag is {@code tag} (the text between the braces). */
	static int slot(String tag) {
		int crc = 0;
		for (byte b : tag.getBytes(StandardCharsets.UTF_8)) {
			crc = ((crc << 8) ^ CRC16_TABLE[((crc >>> 8) ^ b) & 0xFF]) & 0xFFFF;
		}
		return crc & (SLOTS - 1);
	}

	/** A hash tag, braces included, of a key that lives in {@code slot}: {@code {u<n>}}, the smallest such n. */
	static String tag(int slot) {
		return "{u" + Tags.N[slot] + "}";
	}

	/** Made on first use only, by a limiter on a Cluster: some 150,000 hashes, a few ms. */
	private static final class Tags {

		private static final int[] N = new int[SLOTS];

		static {
			java.util.Arrays.fill(N, -1);
			int found = 0;
			for (int n = 0; found < SLOTS; n++) {
				int slot = slot("u" + n);
				if (N[slot] < 0) {
					N[slot] = n;
					found++;
				}
			}
		}

	}

}
