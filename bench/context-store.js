#!/usr/bin/env node
/**
 * Shows that the Redis context store's prepare and persist cost does not grow with the stored
 * history: sessions of 10, 1,000 and 100,000 turns, prepare with a 20-turn window, p50/p99 latency.
 * Then what a workflow run pays for them in n8n, where prepare and persist are two executions of the
 * Agent Context node, each opening its store: with a connection of its own each time (before issue #20),
 * and on the process's shared client (now), measured alternately in the same run.
 *
 * Run after `npm run build`:  node bench/context-store.js
 * Redis: REDIS_URL, or 127.0.0.1:6379. Keys live under a bench prefix that is deleted at the end.
 */
'use strict';

const path = require('node:path');
const { Redis } = require('ioredis');

const distFolder = path.join(__dirname, '..', 'dist', 'src', 'context');
let RedisContextStore;
let redisSessionKeys;
let closeSharedRedisClients;
try {
	({ RedisContextStore, redisSessionKeys } = require(
		path.join(distFolder, 'redis', 'redis-store.js'),
	));
	({ closeSharedRedisClients } = require(
		path.join(distFolder, '..', 'redis', 'shared-clients.js'),
	));
} catch (error) {
	console.error(
		`Cannot load ${distFolder}/redis/redis-store.js (${error.message}); run npm run build first.`,
	);
	process.exit(1);
}

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const KEY_PREFIX = `agent_core_bench:${process.pid}:`;
const HISTORY_SIZES = [10, 1_000, 100_000];
const MEASURED_OPERATIONS = 300;
const WARMUP_OPERATIONS = 30;
/** Full reads of a 100,000-turn list are slow; a few are enough to show the contrast. */
const FULL_READ_OPERATIONS = 5;
const WINDOW = { maxTurns: 20, maxCharacters: 0 };
/** High enough that persist never trims the 100,000-turn session during the bench. */
const PERSIST_OPTIONS = { maxStoredTurns: 200_000, ttlSeconds: 3600 };

function sampleTurn(index) {
	return {
		messages: [
			{
				role: 'user',
				content: `Question ${index}: ${'what about the delivery date and the invoice? '.repeat(4)}`,
			},
			{
				role: 'assistant',
				content: `Answer ${index}: ${'the order ships on Monday and the invoice follows. '.repeat(8)}`,
			},
		],
		at: new Date().toISOString(),
	};
}

/** Fills the list directly with pipelined multi-value RPUSH, much faster than 100,000 persists. */
async function fillSession(client, sessionKey, turns) {
	const { turns: listKey } = redisSessionKeys(KEY_PREFIX, sessionKey);
	const entry = JSON.stringify(sampleTurn(0));
	const valuesPerPush = 1000;
	let pipeline = client.pipeline();
	for (let written = 0; written < turns; written += valuesPerPush) {
		pipeline.rpush(
			listKey,
			...Array.from({ length: Math.min(valuesPerPush, turns - written) }, () => entry),
		);
		if (pipeline.length >= 20) {
			await pipeline.exec();
			pipeline = client.pipeline();
		}
	}
	pipeline.expire(listKey, 3600);
	await pipeline.exec();
}

async function measure(operations, operation) {
	const samples = [];
	for (let index = 0; index < operations; index++) {
		const started = process.hrtime.bigint();
		await operation(index);
		samples.push(Number(process.hrtime.bigint() - started) / 1e6);
	}
	return samples;
}

async function latencies(operation, operations = MEASURED_OPERATIONS, warmup = WARMUP_OPERATIONS) {
	await measure(warmup, operation);
	const samples = (await measure(operations, operation)).sort((left, right) => left - right);
	const at = (fraction) =>
		samples[Math.min(samples.length - 1, Math.floor(fraction * samples.length))];
	return { p50: at(0.5), p99: at(0.99) };
}

/**
 * One workflow run's Agent Context work as n8n executes it: a prepare execution and a persist execution,
 * each opening the store and closing it. `source` is how the store reaches Redis.
 */
async function workflowRun(source, sessionKey, index) {
	for (const step of ['prepare', 'persist']) {
		const store = new RedisContextStore({ ...source(), keyPrefix: KEY_PREFIX });
		try {
			if (step === 'prepare') await store.prepare(sessionKey, WINDOW);
			else
				await store.persist(sessionKey, sampleTurn(index), {
					maxStoredTurns: 40,
					ttlSeconds: 3600,
				});
		} finally {
			await store.close();
		}
	}
}

/** Per workflow run (prepare + persist), own connections against the shared client, alternating in rounds. */
async function perWorkflowRun(client) {
	await fillSession(client, 'per-run', 20);
	const variants = {
		own: () => ({ connection: { url: REDIS_URL } }),
		shared: () => ({ shared: { url: REDIS_URL } }),
	};
	const samples = { own: [], shared: [] };
	for (let round = 0; round < 6; round++) {
		for (const name of round % 2 === 0 ? ['own', 'shared'] : ['shared', 'own']) {
			samples[name].push(
				...(await measure(100, (index) => workflowRun(variants[name], 'per-run', index))),
			);
		}
	}
	await closeSharedRedisClients();
	const at = (list, fraction) =>
		[...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(fraction * list.length))];
	return Object.fromEntries(
		Object.entries(samples).map(([name, list]) => [
			name,
			{ p50: at(list, 0.5), p99: at(list, 0.99), runs: list.length },
		]),
	);
}

async function deleteBenchKeys(client) {
	let cursor = '0';
	do {
		const [next, keys] = await client.scan(cursor, 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 1000);
		cursor = next;
		if (keys.length > 0) await client.unlink(...keys);
	} while (cursor !== '0');
}

const milliseconds = (value) => value.toFixed(3).padStart(9);

async function main() {
	const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
	client.on('error', () => {});
	const store = new RedisContextStore({ connection: { url: REDIS_URL }, keyPrefix: KEY_PREFIX });
	const rows = [];
	let connectRows;
	try {
		// Warm the JIT and the connection first, so the first measured size is not the coldest.
		await fillSession(client, 'warmup', 20);
		await measure(500, (index) =>
			store
				.prepare('warmup', WINDOW)
				.then(() => store.persist('warmup', sampleTurn(index), PERSIST_OPTIONS)),
		);

		for (const size of HISTORY_SIZES) {
			const sessionKey = `session-${size}`;
			await fillSession(client, sessionKey, size);
			const prepared = await store.prepare(sessionKey, WINDOW);
			if (prepared.turns !== 20 && prepared.turns !== size)
				throw new Error(`unexpected window of ${prepared.turns} turns`);

			const prepare = await latencies(() => store.prepare(sessionKey, WINDOW));
			const { turns: listKey } = redisSessionKeys(KEY_PREFIX, sessionKey);
			const fullRead = await latencies(
				async () => (await client.lrange(listKey, 0, -1)).map((entry) => JSON.parse(entry)),
				FULL_READ_OPERATIONS,
				1,
			);
			// Last, because every persist adds a turn to the session.
			const persist = await latencies((index) =>
				store.persist(sessionKey, sampleTurn(index), PERSIST_OPTIONS),
			);
			rows.push({ size, prepare, persist, fullRead });
		}
		connectRows = await perWorkflowRun(client);
	} finally {
		await deleteBenchKeys(client);
		await store.close();
		await client.quit();
	}

	console.log(
		`Redis context store, ${REDIS_URL}, window ${WINDOW.maxTurns} turns, ${MEASURED_OPERATIONS} ops each (ms)`,
	);
	console.log(
		'stored turns | prepare p50 | prepare p99 | persist p50 | persist p99 | full read p50 (naive, for contrast)',
	);
	for (const { size, prepare, persist, fullRead } of rows) {
		console.log(
			`${String(size).padStart(12)} | ${milliseconds(prepare.p50)}   | ${milliseconds(prepare.p99)}   | ` +
				`${milliseconds(persist.p50)}   | ${milliseconds(persist.p99)}   | ${milliseconds(fullRead.p50)}`,
		);
	}
	const smallest = rows[0];
	const largest = rows[rows.length - 1];
	const ratio = (large, small) => (large / small).toFixed(2);
	console.log(
		`p50 ratio ${largest.size} turns / ${smallest.size} turns: prepare ${ratio(largest.prepare.p50, smallest.prepare.p50)}x, ` +
			`persist ${ratio(largest.persist.p50, smallest.persist.p50)}x (flat is ~1x); ` +
			`naive full read ${ratio(largest.fullRead.p50, smallest.fullRead.p50)}x`,
	);
	const { own, shared } = connectRows;
	console.log(
		`\nPer workflow run as n8n executes it (Agent Context prepare + persist, each opening its store), ${own.runs} runs each, alternating (ms):`,
	);
	console.log(
		`  a connection per execution (before): p50 ${milliseconds(own.p50)}, p99 ${milliseconds(own.p99)}`,
	);
	console.log(
		`  the process's shared client (now):   p50 ${milliseconds(shared.p50)}, p99 ${milliseconds(shared.p99)}`,
	);
	console.log(`  shared / own at p50: ${ratio(shared.p50, own.p50)}x`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
