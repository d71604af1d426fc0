// A second message while a run is busy (issue #31): two webhook calls racing on one session in real n8n queue mode, per busy policy.
import * as net from 'node:net';
import { LINES } from '../../../scripts/n8n-cache';
import { redisSessionKeys } from '../../../src/context/redis/redis-store';
import { sessionStoreKey } from '../../../src/context/session/session';
import {
	BUSY_WEBHOOKS,
	busySessionWorkflow,
	HoldingModel,
	type LockingPolicy,
} from './workflows/busy-session-workflows';
import { CHAT, chatReply, lastUserMessageOf } from './model-script';
import { useAgentCoreInN8n, type AgentCoreInN8n, type WebhookResponse } from './n8n-harness';

/**
 * Each worker runs one job at a time: while the first message's execution waits on the model, the second
 * message's execution can only be taken by the other worker, so the two always race from different processes.
 */
const WORKER_CONCURRENCY = 1;
/** A hang guard for the polls below, not an assertion about time. */
const POLL_TIMEOUT_MS = 30000;

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });
/** How the engine replays an earlier answer to the model: the final object it was. */
const replayed = (answer: string) => assistant(JSON.stringify({ type: 'final', answer }));

/** Polls `probe` every 20 ms until it gives a value; fails after POLL_TIMEOUT_MS naming what it waited for. */
async function until<Value>(
	what: string,
	probe: () => Promise<Value | undefined> | Value | undefined,
): Promise<Value> {
	const deadline = Date.now() + POLL_TIMEOUT_MS;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline)
			throw new Error(`gave up after ${POLL_TIMEOUT_MS / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** One race: a session, its two messages, and what the test needs to watch it. */
class Race {
	readonly session: string;
	readonly first: string;
	readonly second: string;
	readonly lockKey: string;

	constructor(
		private readonly n8n: AgentCoreInN8n,
		readonly policy: LockingPolicy,
	) {
		this.session = n8n.uniqueId(`busy-${policy}`);
		this.first = `${CHAT} first message in ${this.session}`;
		this.second = `${CHAT} second message in ${this.session}`;
		this.lockKey = redisSessionKeys(
			'',
			sessionStoreKey({ sessionId: this.session, keyPrefix: n8n.contextKeyPrefix }).key,
		).busy;
	}

	send(prompt: string): Promise<WebhookResponse> {
		return this.n8n.post(BUSY_WEBHOOKS[this.policy], { session_id: this.session, prompt });
	}

	/** The first message's run, once its prepare holds the session's lock: resolves to the lock's value, `<seq>:<id>`. */
	async firstHoldsTheLock(): Promise<string> {
		return until(
			`the lock ${this.lockKey} of the first message's prepare`,
			async () => (await this.n8n.redis.client.get(this.lockKey)) ?? undefined,
		);
	}

	/** The model calls that answered `message` (its last user message), without the system message. */
	modelCallsFor(message: string): Array<Array<{ role: string; content: string }>> {
		return this.n8n.model.requests
			.filter((request) => lastUserMessageOf(request) === message)
			.map((request) =>
				request.messages
					.filter((entry) => entry.role !== 'system')
					.map(({ role, content }) => ({ role, content })),
			);
	}

	async storedTurns(): Promise<Array<{ seq: unknown; messages: unknown }>> {
		return (await this.n8n.readTurns(this.session)).map((turn) => ({
			seq: turn.seq,
			messages: turn.messages,
		}));
	}

	/** The workers that ran the two executions (from their logs): they must differ. */
	workers(first: WebhookResponse, second: WebhookResponse): [string, string] {
		const [one, two] = [first, second].map((response) => {
			const executionId = String(response.body?.execution_id);
			const worker = this.n8n.workerOf(executionId);
			if (!worker)
				throw new Error(
					`no worker log says it started execution ${executionId} (answer: ${response.text.slice(0, 500)})`,
				);
			return worker;
		});
		return [one, two];
	}
}

/**
 * Counts the prepares of other runs that met the session's lock while one run held it: READ_SCRIPT calls on the
 * lock key in mode `take` carrying another lock id, seen through Redis MONITOR (a waiting prepare changes nothing
 * in Redis, so the commands it sends are the only sign of it). On a socket of its own: ioredis's monitor() lost
 * track of its replies on this busy shared Redis ("Command queue state error").
 */
async function watchLockAttempts(
	redisUrl: string,
	lockKey: string,
): Promise<{ attemptsBy(otherThan: string): number; stop(): void }> {
	const url = new URL(redisUrl);
	const socket = net.connect(Number(url.port || 6379), url.hostname);
	const command = (...args: string[]) =>
		`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
	const attempts: string[] = [];
	const auth = url.password
		? [
				command(
					'AUTH',
					...(url.username ? [decodeURIComponent(url.username)] : []),
					decodeURIComponent(url.password),
				),
			]
		: [];
	let acknowledged = 0;
	let pending = '';
	const monitoring = new Promise<void>((resolve, reject) => {
		socket.setEncoding('utf8');
		socket.on('error', reject);
		socket.on('data', (chunk: string) => {
			const lines = (pending + chunk).split('\r\n');
			pending = lines.pop() ?? '';
			for (const line of lines) {
				if (line.startsWith('-')) reject(new Error(`Redis refused MONITOR: ${line}`));
				else if (line === '+OK' && ++acknowledged === auth.length + 1) resolve();
				else if (line.includes(`"${lockKey}"`) && line.includes('"take"')) attempts.push(line);
			}
		});
	});
	socket.write([...auth, command('MONITOR')].join(''));
	try {
		await monitoring;
	} catch (error) {
		socket.destroy();
		throw error;
	}
	return {
		attemptsBy: (holderId) => attempts.filter((line) => !line.includes(holderId)).length,
		stop: () => socket.destroy(),
	};
}

const lockIdOf = (lock: string) => lock.slice(lock.indexOf(':') + 1);

/**
 * Agent Context version 2's busy lock in n8n queue mode: a main and two workers, each running one job at a time,
 * with only the three busy-policy workflows imported. In each test the first message's model reply is held
 * until the second message has been dealt with, so the two overlap for certain, whatever the machine's speed.
 */
export function describeBusySessionInQueueMode(line: 1 | 2): void {
	describe(`A second message while a run is busy, in n8n ${LINES[line].version} queue mode (main + 2 workers, PostgreSQL, Redis)`, () => {
		const model = new HoldingModel();
		const get = useAgentCoreInN8n(line, model.script, {
			queue: { workers: 2, concurrency: WORKER_CONCURRENCY },
			examples: false,
			workflows: (['reject', 'wait', 'latest'] as const).map(busySessionWorkflow),
		});
		afterEach(() => model.releaseAll());

		it('Reject: the second message on a busy session answers HTTP 400 naming the session, without a model call; the first stores its turn', async () => {
			const n8n = get();
			const race = new Race(n8n, 'reject');
			const held = model.hold(race.first);
			const firstAnswer = race.send(race.first);
			await race.firstHoldsTheLock();

			const second = await race.send(race.second);
			held.release();
			const first = await firstAnswer;

			n8n.expectStatus(second, 400);
			expect(second.body).toEqual({
				error: `session "${race.session}" is busy with another run; try again when it answered`,
				execution_id: expect.any(String),
			});
			n8n.expectStatus(first, 200);
			expect(first.body).toMatchObject({
				final_answer: chatReply(race.first, 0),
				history_turns: 0,
				context: { stored: true, seq: 1 },
			});
			expect(race.modelCallsFor(race.second)).toEqual([]);
			expect(await race.storedTurns()).toEqual([
				{ seq: 1, messages: [user(race.first), assistant(chatReply(race.first, 0))] },
			]);
			expect(await n8n.redis.client.exists(race.lockKey)).toBe(0);
			const [firstWorker, secondWorker] = race.workers(first, second);
			expect(firstWorker).not.toBe(secondWorker);
			n8n.report(
				`busy reject: first on ${firstWorker} stored turn 1; second on ${secondWorker} answered HTTP 400 "${second.body.error}"`,
			);
		});

		it('Latest Message Wins: the second message takes the session over and stores its turn; the first still answers, but its persist stores nothing and says so', async () => {
			const n8n = get();
			const race = new Race(n8n, 'latest');
			const held = model.hold(race.first);
			const firstAnswer = race.send(race.first);
			await race.firstHoldsTheLock();

			const second = await race.send(race.second);
			held.release();
			const first = await firstAnswer;

			n8n.expectStatus(second, 200);
			expect(second.body).toMatchObject({
				final_answer: chatReply(race.second, 0),
				history_turns: 0,
				context: { stored: true, seq: 1 },
			});
			n8n.expectStatus(first, 200);
			expect(first.body).toMatchObject({
				final_answer: chatReply(race.first, 0),
				context: {
					stored: false,
					seq: null,
					skipped: `a later message took session "${race.session}" over while this run was answering (busy policy latest); this run's turn was not stored`,
				},
			});
			// Each run was sent the history as it stood when its prepare read it: nothing stored yet.
			expect(race.modelCallsFor(race.first)).toEqual([[user(race.first)]]);
			expect(race.modelCallsFor(race.second)).toEqual([[user(race.second)]]);
			expect(await race.storedTurns()).toEqual([
				{ seq: 1, messages: [user(race.second), assistant(chatReply(race.second, 0))] },
			]);
			expect(await n8n.redis.client.exists(race.lockKey)).toBe(0);
			const [firstWorker, secondWorker] = race.workers(first, second);
			expect(firstWorker).not.toBe(secondWorker);
			n8n.report(
				`busy latest: second on ${secondWorker} took the session over and stored turn 1; first on ${firstWorker} answered, stored nothing`,
			);
		});

		it('Wait: the second message waits on the other worker until the first turn is stored, then is answered with that turn in its history', async () => {
			const n8n = get();
			const race = new Race(n8n, 'wait');
			const held = model.hold(race.first);
			const lockAttempts = await watchLockAttempts(n8n.redis.url, race.lockKey);
			try {
				const firstAnswer = race.send(race.first);
				const firstLock = lockIdOf(await race.firstHoldsTheLock());

				const secondAnswer = race.send(race.second);
				// The second prepare met the held lock and tried again: it is waiting, while the first run is still at the model.
				await until("the second message's prepare to try the held lock twice", () =>
					lockAttempts.attemptsBy(firstLock) >= 2 ? true : undefined,
				);
				const waitingSince = Date.now();
				expect(race.modelCallsFor(race.second)).toEqual([]);
				held.release();
				const first = await firstAnswer;
				const second = await secondAnswer;
				const waitedAfterRelease = Date.now() - waitingSince;

				n8n.expectStatus(first, 200);
				expect(first.body).toMatchObject({
					final_answer: chatReply(race.first, 0),
					history_turns: 0,
					context: { stored: true, seq: 1 },
				});
				n8n.expectStatus(second, 200);
				expect(second.body).toMatchObject({
					final_answer: chatReply(race.second, 2),
					history_turns: 1,
					context: { stored: true, seq: 2 },
				});
				expect(race.modelCallsFor(race.second)).toEqual([
					[user(race.first), replayed(chatReply(race.first, 0)), user(race.second)],
				]);
				expect(await race.storedTurns()).toEqual([
					{ seq: 1, messages: [user(race.first), assistant(chatReply(race.first, 0))] },
					{ seq: 2, messages: [user(race.second), assistant(chatReply(race.second, 2))] },
				]);
				expect(await n8n.redis.client.exists(race.lockKey)).toBe(0);
				const [firstWorker, secondWorker] = race.workers(first, second);
				expect(firstWorker).not.toBe(secondWorker);
				n8n.report(
					`busy wait: second on ${secondWorker} tried the lock ${lockAttempts.attemptsBy(firstLock)} times while first on ${firstWorker} held it; ` +
						`answered ${waitedAfterRelease} ms after the first was let go, with turn 1 in its history`,
				);
			} finally {
				lockAttempts.stop();
			}
		});
	});
}
