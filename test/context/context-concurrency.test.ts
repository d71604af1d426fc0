// Persists, summaries, rewinds and forks on one Redis session from several clients at once: no turn lost, none duplicated, every session consistent.
import { ConversationError } from '../../src/context/errors';
import { RedisContextStore } from '../../src/context/redis/redis-store';
import type { ListedTurn, StoredTurn } from '../../src/context/store';
import { useTestRedis } from '../support/redis';

const redis = useTestRedis();

/** A small deterministic random sequence, so a failing interleaving can be told apart from another by its seed. */
function random(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

const turn = (label: string): StoredTurn => ({
	messages: [
		{ role: 'user', content: label },
		{ role: 'assistant', content: `answer to ${label}` },
	],
	at: new Date().toISOString(),
});
const options = { maxStoredTurns: 10_000, ttlSeconds: 600 };
const expected = (error: unknown) =>
	error instanceof ConversationError &&
	[
		'turn_out_of_range',
		'through_seq_ahead',
		'through_seq_behind',
		'target_exists',
		'busy',
	].includes(error.refusal.code);

describe('one session, eight clients at once', () => {
	it('keeps every stored turn exactly once, in order, with its own content, and every fork a faithful copy', async () => {
		const keyPrefix = redis.keyPrefix('race');
		const clients = Array.from(
			{ length: 8 },
			() => new RedisContextStore({ connection: { url: redis.url }, keyPrefix }),
		);
		const session = 'race';
		/** What each successful persist stored under which number. */
		const storedAs = new Map<number, string>();
		const forks: string[] = [];
		const done = { summaries: 0, rewinds: 0, refusals: 0 };
		try {
			for (let index = 1; index <= 10; index++) {
				const result = await clients[0].append(session, turn(`seed ${index}`), options);
				if (result.stored) storedAs.set(result.seq, `seed ${index}`);
			}
			await Promise.all(
				clients.map(async (client, clientIndex) => {
					const next = random(clientIndex + 1);
					for (let step = 0; step < 40; step++) {
						const label = `client ${clientIndex} step ${step}`;
						const choice = next();
						try {
							if (choice < 0.45) {
								const result = await client.append(session, turn(label), options);
								if (result.stored) storedAs.set(result.seq, label);
							} else if (choice < 0.65) {
								const { last_seq: last } = await client.list(session);
								const summary = {
									through_seq: Math.max(1, Math.floor(last * next())),
									replaced_turns: 1,
									model: 'm',
									tokens_before: 1,
									tokens_after: 1,
									at: new Date().toISOString(),
									content: label,
								};
								const result = await client.append(session, turn(label), options, { summary });
								if (result.stored) storedAs.set(result.seq, label);
								done.summaries++;
							} else if (choice < 0.85) {
								const { last_seq: last } = await client.list(session);
								await client.rewind(session, Math.floor(last * (0.7 + 0.3 * next())), {});
								done.rewinds++;
							} else {
								const { last_seq: last } = await client.list(session);
								const target = `fork-${clientIndex}-${step}`;
								await client.fork(session, target, Math.max(1, Math.floor(last * next())), {
									ttlSeconds: 600,
								});
								forks.push(target);
							}
						} catch (error) {
							if (!expected(error)) throw error;
							done.refusals++;
						}
					}
				}),
			);

			const listing = await clients[0].list(session);
			const seqs = listing.turns.map((listed) => listed.seq);
			// Every number given is there exactly once (live or archived): nothing lost, nothing twice.
			expect(seqs).toEqual([...storedAs.keys()].sort((left, right) => left - right));
			const live = listing.turns.filter((listed) => listed.state === 'live');
			const through = listing.summary?.through_seq ?? 0;
			expect(live.every((listed) => listed.seq > through)).toBe(true);
			expect(
				listing.turns
					.filter((listed) => listed.state === 'summarised')
					.every((listed) => listed.seq <= through),
			).toBe(true);
			// Each turn holds what was stored under its number (the user message's size tells the labels apart).
			const snapshot = await clients[0].get(session);
			for (const stored of snapshot.turns)
				expect(stored.messages[0].content).toBe(storedAs.get(stored.seq!));
			expect(snapshot.turns.map((stored) => stored.seq)).toEqual(live.map((listed) => listed.seq));

			// Each kind of write happened (and some were refused, as racing ones are), so the interleavings were real.
			expect(forks.length).toBeGreaterThan(0);
			expect(done.summaries).toBeGreaterThan(0);
			expect(done.rewinds).toBeGreaterThan(0);
			expect(done.refusals).toBeGreaterThan(0);
			for (const fork of forks) {
				const forked = await clients[0].get(fork);
				const numbers = forked.turns.map((stored) => stored.seq!);
				expect(numbers).toEqual([...numbers].sort((left, right) => left - right));
				for (const stored of forked.turns)
					expect(stored.messages[0].content).toBe(storedAs.get(stored.seq!));
				const forkListing = await clients[0].list(fork);
				const forkThrough = forkListing.summary?.through_seq ?? 0;
				expect(
					forkListing.turns.every((listed: ListedTurn) =>
						listed.state === 'live' ? listed.seq > forkThrough : listed.seq <= forkThrough,
					),
				).toBe(true);
			}
		} finally {
			await Promise.all(clients.map((client) => client.close()));
		}
	}, 60_000);
});
