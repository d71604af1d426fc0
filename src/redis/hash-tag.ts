// Redis Cluster hash tags: which part of a key picks its slot, so the keys of one unit share a slot.

/** How many slots a Redis Cluster divides its keys into. */
const CLUSTER_SLOTS = 16_384;

/**
 * `{unit}`, to put in each key of one unit (a conversation, a budget period, a session's values): a Redis
 * Cluster hashes only what is inside a key's first `{…}`, so every key with the same tag lands in the same slot,
 * and a script may touch them together (else CROSSSLOT). `%`, `{` and `}` in the unit are percent-encoded, so
 * the tag always ends at its own `}` and is never empty, and two units never share a tag by accident.
 */
export function hashTag(unit: string): string {
	return `{${unit.replace(/[%{}]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}}`;
}

/** The slot of `key` as Redis Cluster computes it: CRC16 (XModem) of the hash tag, or of the key without one, mod 16384. */
export function keySlot(key: string): number {
	let hashed = Buffer.from(key, 'utf8');
	const open = hashed.indexOf(0x7b); // {
	if (open !== -1) {
		const close = hashed.indexOf(0x7d, open + 1); // }
		if (close > open + 1) hashed = hashed.subarray(open + 1, close);
	}
	let crc = 0;
	for (const byte of hashed) {
		crc ^= byte << 8;
		for (let bit = 0; bit < 8; bit++)
			crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
	}
	return crc % CLUSTER_SLOTS;
}
