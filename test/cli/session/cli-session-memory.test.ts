// `agent-core run --session` stores what the run returns (summary, tool results) as Agent Context does, and `agent-core session list | fork | rewind` — from several processes at once too.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { redisSessionKeys } from '../../../src/context/redis/redis-store';
import type { ScriptedRequest } from '../../../src/demo/scripted-server';
import { action, final, useScriptedServer } from '../../support/agent';
import { runCli, type CliRun } from '../../support/cli';
import { deleteKeysByPrefix, getTestRedis, type TestRedis } from '../../support/redis';

const isSummaryCall = (request: ScriptedRequest) =>
	request.messages[0].content.startsWith('You keep the memory of a conversation');
const parsed = (run: CliRun) => JSON.parse(run.stdout) as Record<string, any>;

describe('conversations kept by the CLI (issue #31)', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	let folder: string;
	const sessions: string[] = [];

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
		folder = mkdtempSync(join(tmpdir(), 'agent-core-session-memory-'));
	});
	afterAll(async () => {
		for (const session of sessions) await deleteKeysByPrefix(client, `{agent_core:ctx:${session}`);
		client.disconnect();
		await redis.stop();
		rmSync(folder, { recursive: true, force: true });
	});

	const newSession = (label: string) => {
		const session = `${label}-${randomUUID()}`;
		sessions.push(session);
		return session;
	};
	const configFile = (config: object) => {
		const path = join(folder, `${randomUUID()}.json`);
		writeFileSync(path, JSON.stringify({ model: 'm', ...config }));
		return path;
	};
	const run = (config: string, session: string, prompt: string, extra: string[] = []) =>
		runCli([
			'run',
			'--config',
			config,
			'--prompt',
			prompt,
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--session',
			session,
			'--redis-url',
			redis.url,
			...extra,
		]);
	const sessionCli = (...args: string[]) => runCli(['session', ...args, '--redis-url', redis.url]);
	const turnStates = async (session: string) =>
		(
			parsed(await sessionCli('list', '--session', session)).turns as Array<{
				seq: number;
				state: string;
			}>
		).map((turn) => `${turn.seq}:${turn.state}`);

	it('stores the summary a run writes, moving the turns it covers to the archive; the next run replays the summary', async () => {
		const session = newSession('summary');
		server().setScript((request) =>
			isSummaryCall(request)
				? final('The user is Ada; order 4711.')
				: final(`Noted ${request.messages.length}.`),
		);
		const config = configFile({ context_window_tokens: 700, keep_recent_turns: 1 });
		const outputs: Array<Record<string, any>> = [];
		outputs.push(parsed(await run(config, session, 'My name is Ada and my order is 4711.')));
		for (let turn = 2; turn <= 6; turn++)
			outputs.push(
				parsed(
					await run(
						config,
						session,
						`Question ${turn}: ${'tell me more about engines '.repeat(8)}`,
					),
				),
			);
		const summarised = outputs.filter((output) => output.context.summary_stored);
		expect(summarised.length).toBeGreaterThan(0);
		expect(summarised[0].context).toMatchObject({ archived_turns: expect.any(Number) });
		const states = await turnStates(session);
		expect(states[0]).toBe('1:summarised');
		expect(states.at(-1)).toBe('6:live');
		const last = server()
			.requests.filter((request) => !isSummaryCall(request))
			.at(-1)!;
		expect(
			last.messages.some((message) => message.content.includes('The user is Ada; order 4711.')),
		).toBe(true);
		expect(
			last.messages.some((message) =>
				message.content.includes('My name is Ada and my order is 4711.'),
			),
		).toBe(false);
	});

	it("keeps a run's tool results with its turn, so the next run is told what the tool returned without running it", async () => {
		const session = newSession('tools');
		const config = configFile({ allowed_tools: ['json_transform'] });
		server().setScript([
			action('json_transform', { data: { prices: [3, 4] }, expression: 'sum(prices)' }),
			final('The total is 7.'),
			final('It was 7.'),
		]);
		expect(parsed(await run(config, session, 'Add up the prices.')).context).toMatchObject({
			stored_turns: 1,
			seq: 1,
		});
		expect(parsed(await run(config, session, 'What did the tool return?')).final_answer).toBe(
			'It was 7.',
		);
		const replayed = server()
			.requests[2].messages.map((message) => message.content)
			.join('\n');
		expect(replayed).toContain('remembered from an earlier turn; the tool did not run again');
		expect(replayed).toMatch(/Observation from json_transform:\n<observation>\n7\n/);
	});

	/** Resolves once a run holds the session's lock (its prepare is done), so the next process surely meets it. */
	async function untilLocked(session: string): Promise<void> {
		const busy = redisSessionKeys('', `agent_core:ctx:${session}`).busy;
		while ((await client.exists(busy)) === 0)
			await new Promise((resolve) => setTimeout(resolve, 20));
	}

	it('refuses a second run on a busy session (exit 2, before the model is asked); with --busy latest the earlier run stores nothing and says so', async () => {
		const session = newSession('busy');
		const config = configFile({});
		// The earlier message of each pair is answered slowly, so the later one comes while it is busy.
		server().setScript((request) => {
			const question = request.messages.at(-1)!.content;
			return {
				text: final(`answered ${question}`),
				delayMs: question === 'first' || question === 'third' ? 3000 : 0,
			};
		});
		const first = run(config, session, 'first');
		await untilLocked(session);
		const second = await run(config, session, 'second');
		expect(second.code).toBe(2);
		expect(second.stderr).toContain(
			`agent-core: session "${session}" is busy with another run; try again when it answered`,
		);
		expect(second.stderr).toContain('fix: Send the message again once the earlier one is answered');
		expect(parsed(await first).context).toMatchObject({ stored_turns: 1 });
		expect(server().requests.map((request) => request.messages.at(-1)!.content)).toEqual(['first']);

		const early = run(config, session, 'third', ['--busy', 'latest']);
		await untilLocked(session);
		const late = await run(config, session, 'fourth', ['--busy', 'latest']);
		const earlyRun = await early;
		expect(parsed(earlyRun).context).toMatchObject({
			stored: false,
			notice: expect.stringContaining('a later message took session'),
		});
		expect(earlyRun.stderr).toContain('a later message took session');
		expect(parsed(late).context).toMatchObject({ stored_turns: 2, seq: 2 });
	});

	it('lists, forks and rewinds a session; a bad turn, an existing target or an unknown session exits 2 naming the flag', async () => {
		const session = newSession('branches');
		const config = configFile({});
		server().setScript((request) => final(`re: ${request.messages.at(-1)!.content}`));
		for (const prompt of ['one', 'two', 'three', 'four']) await run(config, session, prompt);
		expect(await turnStates(session)).toEqual(['1:live', '2:live', '3:live', '4:live']);

		const target = newSession('branch');
		const forked = await sessionCli(
			'fork',
			'--session',
			session,
			'--to-session',
			target,
			'--turn',
			'2',
		);
		expect(forked.code).toBe(0);
		expect(parsed(forked)).toEqual({
			session_id: session,
			to_session_id: target,
			turns: 2,
			summary: false,
			restored: 0,
			last_seq: 2,
		});
		expect(parsed(await run(config, target, 'five')).context).toMatchObject({
			history_turns: 2,
			seq: 3,
		});

		expect(parsed(await sessionCli('rewind', '--session', session, '--turn', '1'))).toEqual({
			session_id: session,
			archived: 3,
			restored: 0,
			summary_dropped: false,
			live_turns: 1,
		});
		expect(await turnStates(session)).toEqual(['1:live', '2:rewound', '3:rewound', '4:rewound']);
		expect(parsed(await run(config, session, 'again')).context).toMatchObject({
			history_turns: 1,
			seq: 5,
		});

		const cases: Array<[string[], RegExp]> = [
			[
				['rewind', '--session', session, '--turn', '1000000000'],
				/turn 1000000000 is out of range: session ".*" has turns 0 to 5/,
			],
			[
				['rewind', '--session', session, '--turn=-1'],
				/^agent-core: --turn must be a turn number of the session: a whole number from 0 up .*, not "-1"/,
			],
			[
				['fork', '--session', session, '--to-session', target, '--turn', '1'],
				/session ".*" already exists; a fork only creates a new session/,
			],
			[['list', '--session', `nobody-${randomUUID()}`], /has no stored conversation/],
			[['rewind', '--session', session], /^agent-core: --turn is required for session rewind/],
			[
				['list', '--session', session, '--turn', '2'],
				/^agent-core: --turn does not belong to session list/,
			],
			[['split', '--session', session], /^agent-core: unknown session command "split"/],
		];
		for (const [args, message] of cases) {
			const refused = await sessionCli(...args);
			expect({ args, code: refused.code }).toEqual({ args, code: 2 });
			expect(refused.stderr).toMatch(message);
		}
	});

	it('fork and rewind from several processes at once leave every session consistent: no turn lost or duplicated', async () => {
		const session = newSession('race');
		const keys = redisSessionKeys('', `agent_core:ctx:${session}`);
		for (let turn = 1; turn <= 10; turn++) {
			await client.rpush(
				keys.turns,
				JSON.stringify({
					seq: turn,
					messages: [
						{ role: 'user', content: `q${turn}` },
						{ role: 'assistant', content: `a${turn}` },
					],
					at: new Date().toISOString(),
				}),
			);
		}
		await client.set(keys.seq, '10');
		const sharedTarget = newSession('race-target');
		const forkTargets = [newSession('race-a'), newSession('race-b'), newSession('race-c')];
		const processes = await Promise.all([
			sessionCli('rewind', '--session', session, '--turn', '7'),
			sessionCli('rewind', '--session', session, '--turn', '4'),
			sessionCli('fork', '--session', session, '--to-session', forkTargets[0], '--turn', '9'),
			sessionCli('fork', '--session', session, '--to-session', forkTargets[1], '--turn', '5'),
			sessionCli('fork', '--session', session, '--to-session', forkTargets[2], '--turn', '2'),
			sessionCli('fork', '--session', session, '--to-session', sharedTarget, '--turn', '3'),
			sessionCli('fork', '--session', session, '--to-session', sharedTarget, '--turn', '3'),
		]);
		for (const process of processes)
			expect(process.code === 0 || /out of range|already exists/.test(process.stderr)).toBe(true);
		// Two forks raced for one target: exactly one made it.
		expect(processes.slice(5).filter((process) => process.code === 0)).toHaveLength(1);

		// The source: every turn 1–10 exactly once, live ones first and contiguous, the rest rewound.
		const source = await turnStates(session);
		expect(source.map((state) => Number(state.split(':')[0]))).toEqual([
			1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
		]);
		expect(source.filter((state) => state.endsWith(':live'))).toEqual([
			'1:live',
			'2:live',
			'3:live',
			'4:live',
		]);
		// Each fork that was made holds the source's turns 1..k, in order, with their own content.
		for (const target of [...forkTargets, sharedTarget]) {
			const turns = (
				await client.lrange(redisSessionKeys('', `agent_core:ctx:${target}`).turns, 0, -1)
			).map((entry) => JSON.parse(entry));
			turns.forEach((turn, index) =>
				expect([turn.seq, turn.messages[0].content]).toEqual([index + 1, `q${index + 1}`]),
			);
		}
	});

	it('continues a session written before turns were numbered', async () => {
		const session = newSession('legacy');
		const keys = redisSessionKeys('', `agent_core:ctx:${session}`);
		await client.rpush(
			keys.turns,
			...[1, 2].map((turn) =>
				JSON.stringify({
					messages: [
						{ role: 'user', content: `old ${turn}` },
						{ role: 'assistant', content: `old answer ${turn}` },
					],
					at: new Date().toISOString(),
				}),
			),
		);
		server().setScript(final('ok'));
		const output = parsed(await run(configFile({}), session, 'new'));
		expect(output.context).toMatchObject({ history_turns: 2, stored_turns: 3, seq: 3 });
		expect(await turnStates(session)).toEqual(['1:live', '2:live', '3:live']);
	});
});
