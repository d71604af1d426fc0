/** Issue #26, "Smaller, same family": a hostile collector, a Redis lost mid-run, and a fallback key sent elsewhere. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../nodes/AgentCore/AgentCore.node';
import { resumeAgent } from '../../src/agent/resume';
import { runAgent } from '../../src/agent/run-agent';
import { RedisBudgetLedger } from '../../src/budget/redis-ledger';
import { environmentKeyRefusal, originOf } from '../../src/cli/fallback-key';
import { RedisError } from '../../src/redis/errors';
import type { AgentEvent } from '../../src/agent/base/events';
import {
	action,
	final,
	modelFor,
	probeTool,
	startsScriptedServers,
	useScriptedServer,
} from '../support/agent';
import { runCli } from '../support/cli';
import { startServer, useLoopbackGuard } from '../support/servers/http-servers';
import { runWorkflow } from '../support/n8n-engine';
import {
	createTestDatabase,
	dropTestDatabase,
	postgresEnvironment,
	query,
} from '../support/postgres';
import {
	freeLoopbackPort,
	redisCredentialData,
	startRedisServer,
	startSilentServer,
	type TestRedis,
} from '../support/redis';
import { rejectionOf } from '../support/rejection';
import { connectInSequence, createInputNode, createNode } from '../support/test-nodes';
import { useEventLoopWatchdog } from '../support/watchdog';

const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');

let folder: string;
beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-operations-'))));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const writeConfig = (name: string, config: unknown) => {
	const path = join(folder, name);
	writeFileSync(path, JSON.stringify(config));
	return path;
};

/** The CLI in a child process, with when its output arrived and when it exited (ms since the epoch). */
function timedCli(
	args: string[],
	environment: Record<string, string>,
): Promise<{
	code: number | null;
	stdout: string;
	stderr: string;
	outputAt: number;
	exitedAt: number;
}> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, ...args], {
			env: { PATH: process.env.PATH ?? '', ...environment },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		let outputAt = 0;
		child.stdout.on('data', (chunk) => {
			stdout += chunk;
			outputAt = Date.now();
		});
		child.stderr.on('data', (chunk) => (stderr += chunk));
		// A CLI held open by its collector would hang the test: stop it well past the bound under test.
		const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
		let exitedAt = 0;
		child.on('exit', () => (exitedAt = Date.now()));
		child.on('close', (code) => {
			clearTimeout(guard);
			resolve({ code, stdout, stderr, outputAt, exitedAt });
		});
	});
}

/** An OTLP collector that answers its requests' headers, then trickles one byte of body every 200 ms, forever. */
async function startTricklingCollector(): Promise<{
	url: string;
	requests(): number;
	close(): Promise<void>;
}> {
	const sockets = new Set<net.Socket>();
	const timers = new Set<NodeJS.Timeout>();
	let requests = 0;
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('error', () => {});
		socket.on('close', () => sockets.delete(socket));
		socket.once('data', () => {
			requests++;
			socket.write(
				'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
			);
			const timer = setInterval(() => socket.write('1\r\n \r\n'), 200);
			timers.add(timer);
			socket.on('close', () => clearInterval(timer));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
		requests: () => requests,
		close: async () => {
			for (const timer of timers) clearInterval(timer);
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe('an OpenTelemetry collector that refuses, hangs or trickles never holds the CLI', () => {
	useEventLoopWatchdog('operations');
	const server = useScriptedServer();

	const runTraced = (endpoint: string) => {
		server().setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final('two'),
		]);
		const config = writeConfig('traced.json', { model: 'm', allowed_tools: ['json_transform'] });
		return timedCli(
			[
				'run',
				'--config',
				config,
				'--prompt',
				'count',
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
			],
			{ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
		);
	};

	const expectPromptExit = (run: Awaited<ReturnType<typeof runTraced>>) => {
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({ finish_reason: 'final', final_answer: 'two' });
		// The flush is bounded at 1 s; the rest is the process ending.
		expect(run.exitedAt - run.outputAt).toBeLessThan(2_000);
	};

	it('exits within 2 s of its output when the collector’s port is closed', async () => {
		const run = await runTraced(`http://127.0.0.1:${await freeLoopbackPort()}`);
		expectPromptExit(run);
	});

	it('exits within 2 s of its output when the collector accepts and never answers', async () => {
		const silent = await startSilentServer();
		try {
			const run = await runTraced(`http://127.0.0.1:${silent.port}`);
			expectPromptExit(run);
		} finally {
			await silent.close();
		}
	});

	it('exits within 2 s of its output when an https collector accepts and never finishes the handshake', async () => {
		const silent = await startSilentServer();
		try {
			const run = await runTraced(`https://127.0.0.1:${silent.port}`);
			expectPromptExit(run);
		} finally {
			await silent.close();
		}
	});

	it('exits within 2 s of its output when the collector answers a byte at a time, forever', async () => {
		const collector = await startTricklingCollector();
		try {
			const run = await runTraced(collector.url);
			expectPromptExit(run);
			// The export did reach it: the bound, not a missed export, is what ended the wait.
			expect(collector.requests()).toBeGreaterThanOrEqual(1);
		} finally {
			await collector.close();
		}
	});
});

describe('a shared budget whose Redis is lost mid-run', () => {
	useEventLoopWatchdog('operations');
	useLoopbackGuard();
	const server = useScriptedServer();
	const runNode = (
		items: IDataObject[],
		parameters: INodeParameters,
		redisCredential: Record<string, IDataObject>,
	) =>
		runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							...(redisCredential.agentCoreRedisApi
								? { agentCoreRedisApi: { id: '3', name: 'Redis' } }
								: {}),
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				...redisCredential,
			},
		});
	const usage = { prompt_tokens: 70, completion_tokens: 30 };
	let redis: TestRedis | undefined;
	afterEach(async () => {
		await redis?.stop();
		redis = undefined;
	});
	const budget = (scope: string) => ({ scope, tokens: 1_000_000, period_seconds: 3600 });
	// The first run of a process loads the provider SDK and the first workflow loads n8n's engine (a few
	// hundred ms, once): done here, so that each test's stall is the attack's alone.
	beforeAll(async () => {
		server().setScript(final('warm'));
		await runAgent({ model: modelFor(server()), config: { model: 'm' }, prompt: 'warm up' });
		await runNode([{ prompt: 'warm up' }], {}, {});
	});

	it('ends budget_unavailable before the next model call when Redis dies while a side-effecting tool runs', async () => {
		redis = await startRedisServer();
		const ledger = new RedisBudgetLedger({ connection: { url: redis.url } });
		const probe = probeTool('probe', async () => {
			await redis!.stop();
			return 'payment sent';
		});
		server().setScript([
			{ text: action('probe', { value: 1 }), usage },
			{ text: final('never asked'), usage },
		]);
		try {
			const result = await runAgent({
				model: modelFor(server()),
				config: { model: 'm', allowed_tools: ['probe'], shared_budget: budget('pay') },
				budgetLedger: ledger,
				prompt: 'pay',
				extraTools: [probe.tool],
			});
			const port = new URL(redis.url).port;
			expect(result.finish_reason).toBe('budget_unavailable');
			expect(result.stop_detail).toMatch(
				new RegExp(
					`^shared budget "pay" could not be checked \\(Redis at 127\\.0\\.0\\.1:${port} .*\\); the run stopped before its next model call$`,
				),
			);
			expect(server().requests).toHaveLength(1);
			expect(probe.calls).toEqual([{ value: 1 }]);
			expect(result.trace).toHaveLength(1);
			expect(result.trace[0].observation).toBe('payment sent');
			expect(result.usage.total_tokens).toBe(100);
		} finally {
			await ledger.close();
		}
	});

	it('ends budget_unavailable without acting on the reply when Redis dies between the check and the charge', async () => {
		redis = await startRedisServer();
		const ledger = new RedisBudgetLedger({ connection: { url: redis.url } });
		const probe = probeTool();
		server().setScript(async () => {
			await redis!.stop();
			return { text: action('probe', { value: 2 }), usage };
		});
		try {
			const result = await runAgent({
				model: modelFor(server()),
				config: { model: 'm', allowed_tools: ['probe'], shared_budget: budget('gap') },
				budgetLedger: ledger,
				prompt: 'q',
				extraTools: [probe.tool],
			});
			expect(result.finish_reason).toBe('budget_unavailable');
			expect(result.stop_detail).toMatch(
				/^shared budget "gap" could not be charged the 100 tokens of this step's model call \(Redis at 127\.0\.0\.1:\d+ .*\); the run stopped without acting on the reply$/,
			);
			expect(probe.calls).toEqual([]);
			expect(server().requests).toHaveLength(1);
			expect(result.trace[0]).toMatchObject({
				step: 1,
				error: { type: 'limit', message: result.stop_detail },
			});
			expect(result.trace[0].action).toBeUndefined();
		} finally {
			await ledger.close();
		}
	});

	it('takes back a streamed answer whose charge failed: no answer text stands', async () => {
		redis = await startRedisServer();
		const ledger = new RedisBudgetLedger({ connection: { url: redis.url } });
		const answer =
			'The transfer is approved and booked, reference 4471, nothing else to do here for you today.';
		server().setScript(async () => {
			await redis!.stop();
			return { text: final(answer), usage };
		});
		const events: AgentEvent[] = [];
		try {
			const result = await runAgent({
				model: modelFor(server()),
				config: { model: 'm', shared_budget: budget('stream') },
				budgetLedger: ledger,
				prompt: 'q',
				onEvent: (event) => events.push(event),
			});
			expect(result).toMatchObject({ finish_reason: 'budget_unavailable', final_answer: '' });
			const lastRestart = events.map((event) => event.type).lastIndexOf('answer_restart');
			const standing = events
				.slice(lastRestart + 1)
				.filter((event) => event.type === 'answer_delta');
			expect(standing).toEqual([]);
			expect(events[events.length - 1]).toEqual({
				type: 'done',
				finish_reason: 'budget_unavailable',
			});
		} finally {
			await ledger.close();
		}
	});

	it('a resumed run whose Redis is gone runs the approved call, then ends budget_unavailable before its next model call', async () => {
		redis = await startRedisServer();
		const ledger = new RedisBudgetLedger({ connection: { url: redis.url } });
		const probe = probeTool();
		const secret = 'operations-state-secret-0123456789abcdef';
		const config = {
			model: 'm',
			allowed_tools: ['probe'],
			approval_required: ['probe'],
			shared_budget: budget('resume'),
		};
		server().setScript([
			{ text: action('probe', { value: 3 }), usage },
			{ text: final('never asked'), usage },
		]);
		try {
			const paused = await runAgent({
				model: modelFor(server()),
				config,
				budgetLedger: ledger,
				prompt: 'q',
				extraTools: [probe.tool],
				stateSecret: secret,
			});
			expect(paused.finish_reason).toBe('awaiting_approval');
			await redis.stop();
			const resumed = await resumeAgent({
				model: modelFor(server()),
				config,
				budgetLedger: ledger,
				runState: paused.run_state,
				decision: { approve: true },
				extraTools: [probe.tool],
				stateSecret: secret,
			});
			expect(resumed.finish_reason).toBe('budget_unavailable');
			expect(resumed.stop_detail).toMatch(
				/^shared budget "resume" could not be checked \(Redis at 127\.0\.0\.1:\d+ /,
			);
			expect(probe.calls).toEqual([{ value: 3 }]);
			expect(server().requests).toHaveLength(1);
		} finally {
			await ledger.close();
		}
	});

	it('fails with the clear Redis error and no model call when Redis refuses from the start: nothing ran, nothing to keep', async () => {
		const port = await freeLoopbackPort();
		const ledger = new RedisBudgetLedger({ connection: { url: `redis://127.0.0.1:${port}` } });
		const probe = probeTool();
		try {
			const error = await rejectionOf(
				runAgent({
					model: modelFor(server()),
					config: { model: 'm', allowed_tools: ['probe'], shared_budget: budget('start') },
					budgetLedger: ledger,
					prompt: 'q',
					extraTools: [probe.tool],
				}),
			);
			expect(error).toBeInstanceOf(RedisError);
			expect(error.message).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} is unreachable`));
			expect(server().requests).toHaveLength(0);
			expect(probe.calls).toEqual([]);
		} finally {
			await ledger.close();
		}
	});

	it('through the CLI: prints the output, exits 0 and writes the audit row when Redis dies while a POST runs', async () => {
		redis = await startRedisServer();
		const database = await createTestDatabase();
		const target = await startServer((_, response) => {
			void redis!.stop().then(() => response.end('{"paid":true}'));
		});
		try {
			server().setScript([
				{
					text: action('http_request', {
						url: `${target.url}/pay`,
						method: 'POST',
						body: { amount: 10 },
					}),
					usage,
				},
				{ text: final('never asked'), usage },
			]);
			const config = writeConfig('redis-lost.json', {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: {
					http_request: { allowed_domains: ['127.0.0.1'], allow_private_network: true },
				},
				shared_budget: budget('cli-lost'),
			});
			const run = await runCli(
				[
					'run',
					'--config',
					config,
					'--prompt',
					'pay',
					'--base-url',
					server().openaiBaseUrl,
					'--api-key',
					'k',
					'--redis-url',
					redis.url,
					'--audit-postgres',
					database.url,
				],
				postgresEnvironment(),
			);
			expect(run).toMatchObject({ code: 0, stderr: '' });
			const output = JSON.parse(run.stdout);
			expect(output.finish_reason).toBe('budget_unavailable');
			expect(output.stop_detail).toContain(`Redis at 127.0.0.1:${new URL(redis.url).port}`);
			expect(target.requests.map((request) => request.method)).toEqual(['POST']);
			expect(server().requests).toHaveLength(1);
			const rows = await query(
				database.url,
				'SELECT run_id, finish_reason, stop_detail FROM agent_core_audit_runs',
			);
			expect(rows).toEqual([
				{
					run_id: output.audit.run_id,
					finish_reason: 'budget_unavailable',
					stop_detail: output.stop_detail,
				},
			]);
		} finally {
			await dropTestDatabase(database.name);
		}
	});

	it('through the CLI: exits 2 naming Redis, with no model call, when Redis refuses from the start', async () => {
		const port = await freeLoopbackPort();
		const config = writeConfig('redis-refused.json', {
			model: 'm',
			shared_budget: budget('cli-refused'),
		});
		const run = await runCli([
			'run',
			'--config',
			config,
			'--prompt',
			'q',
			'--base-url',
			server().openaiBaseUrl,
			'--api-key',
			'k',
			'--redis-url',
			`redis://127.0.0.1:${port}`,
		]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			new RegExp(`^agent-core: Redis at 127\\.0\\.0\\.1:${port} is unreachable`),
		);
		expect(run.stdout).toBe('');
		expect(server().requests).toHaveLength(0);
	});

	it('in n8n’s engine: the item ends budget_unavailable when Redis dies during a model call', async () => {
		redis = await startRedisServer();
		server().setScript(async () => {
			await redis!.stop();
			return { text: action('json_transform', { data: [1], expression: 'length(@)' }), usage };
		});
		const limits = {
			sharedBudgetTokens: 1_000_000,
			sharedBudgetScope: 'node-lost',
			sharedBudgetPeriod: 3600,
		};
		const result = await runNode(
			[{ prompt: 'a' }],
			{ allowedTools: ['json_transform'], limits },
			{ agentCoreRedisApi: redisCredentialData(redis.url) },
		);
		const [item] = result.outputOf('Agent Core');
		expect(item.json).toMatchObject({ finish_reason: 'budget_unavailable' });
		expect(item.json.stop_detail).toContain(`Redis at 127.0.0.1:${new URL(redis.url).port}`);
		expect(server().requests).toHaveLength(1);
	});
});

describe('a fallback never gets the primary’s environment key on another origin', () => {
	useEventLoopWatchdog('operations');
	useLoopbackGuard();
	const startScripted = startsScriptedServers();
	const ENVIRONMENT_KEY = 'sk-env-primary-7Hq2Lm9Xw4';

	const runWithFallback = async (
		fallbackBaseUrl: (primaryPort: number, otherPort: number) => string,
		extra: string[] = [],
	) => {
		const primary = await startScripted({ script: [final('from the primary')] });
		const other = await startServer((_, response) => response.end('{}'));
		const primaryPort = Number(new URL(primary.openaiBaseUrl).port);
		const config = writeConfig('fallback.json', { model: 'm' });
		const fallbackUrl = fallbackBaseUrl(primaryPort, other.port);
		const run = await runCli(
			[
				'run',
				'--config',
				config,
				'--prompt',
				'q',
				'--base-url',
				primary.openaiBaseUrl,
				'--fallback-model',
				'm2',
				'--fallback-base-url',
				fallbackUrl,
				...extra,
			],
			{ OPENAI_API_KEY: ENVIRONMENT_KEY },
		);
		return { run, primary, other };
	};

	it.each([
		['another port', (_: number, other: number) => `http://127.0.0.1:${other}/v1`],
		['another scheme', (primary: number) => `https://127.0.0.1:${primary}/v1`],
		[
			'another host behind userinfo that spells the primary',
			(primary: number, other: number) => `http://127.0.0.1:${primary}@127.0.0.1:${other}/v1`,
		],
		[
			'another port, with a password in the URL',
			(_: number, other: number) => `http://user:pw-in-url-5Tz@127.0.0.1:${other}/v1`,
		],
		['not a URL', () => 'localhost-no-scheme'],
	])('exits 2 naming --fallback-api-key before any request: %s', async (_label, fallbackUrl) => {
		const { run, primary, other } = await runWithFallback(fallbackUrl);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^agent-core: --fallback-api-key KEY is needed: the fallback's base URL \(.*\) is not on the primary's origin \(http:\/\/127\.0\.0\.1:\d+\), so it may not reuse OPENAI_API_KEY; pass the key for the fallback's host\n$/,
		);
		expect(run.stderr).not.toMatch(/pw-in-url|sk-env/);
		expect(run.stdout).toBe('');
		expect(primary.requests).toHaveLength(0);
		expect(other.connections).toBe(0);
	});

	it('runs when the fallback is on the primary’s origin spelled differently (scheme and host case, default path)', async () => {
		const { run, other } = await runWithFallback(
			(primary) => `HTTP://127.0.0.1:${primary}/other/v1`,
		);
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout).final_answer).toBe('from the primary');
		expect(other.connections).toBe(0);
	});

	it('with --fallback-api-key the fallback on another port gets that key, never the environment’s', async () => {
		const primary = await startScripted({
			script: () => ({ status: 400, errorMessage: 'primary refuses' }),
		});
		const fallback = await startScripted({ script: [final('from the fallback')] });
		const config = writeConfig('fallback-keyed.json', { model: 'm' });
		const run = await runCli(
			[
				'run',
				'--config',
				config,
				'--prompt',
				'q',
				'--base-url',
				primary.openaiBaseUrl,
				'--fallback-model',
				'm2',
				'--fallback-base-url',
				fallback.openaiBaseUrl,
				'--fallback-api-key',
				'sk-fallback-own-3Rb8',
			],
			{ OPENAI_API_KEY: ENVIRONMENT_KEY },
		);
		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({
			finish_reason: 'final',
			final_answer: 'from the fallback',
		});
		expect(primary.requests[0].headers.authorization).toBe(`Bearer ${ENVIRONMENT_KEY}`);
		expect(fallback.requests.map((request) => request.headers.authorization)).toEqual([
			'Bearer sk-fallback-own-3Rb8',
		]);
		expect(JSON.stringify(fallback.requests)).not.toContain(ENVIRONMENT_KEY);
	});

	it('compares origins after normalising: case, default ports and userinfo do not change one; port, scheme and host do', () => {
		expect(originOf('HTTPS://API.OpenAI.com:443/v1', 'openai')).toBe('https://api.openai.com');
		expect(originOf(undefined, 'openai')).toBe('https://api.openai.com');
		expect(originOf('', 'gemini')).toBe('https://generativelanguage.googleapis.com');
		expect(originOf('http://user:secret@proxy.example:80/v1', 'openai')).toBe(
			'http://proxy.example',
		);
		expect(originOf('file:///etc/passwd', 'openai')).toBeUndefined();
		expect(originOf('not a url', 'openai')).toBeUndefined();
		const openai = (baseUrl?: string) => ({ provider: 'openai' as const, apiKey: 'k', baseUrl });
		expect(
			environmentKeyRefusal(
				openai('https://Proxy.Example/v1'),
				openai('https://proxy.example:443/v2'),
				'OPENAI_API_KEY',
			),
		).toBeUndefined();
		expect(
			environmentKeyRefusal(openai(), openai('https://api.openai.com/v1'), 'OPENAI_API_KEY'),
		).toBeUndefined();
		expect(
			environmentKeyRefusal(openai('https://proxy.example/v1'), openai(), 'OPENAI_API_KEY'),
		).toContain('--fallback-api-key');
		expect(
			environmentKeyRefusal(
				openai('https://proxy.example/v1'),
				openai('http://proxy.example/v1'),
				'OPENAI_API_KEY',
			),
		).toContain('--fallback-api-key');
		expect(
			environmentKeyRefusal(
				openai('https://proxy.example/v1'),
				openai('https://proxy.example:8443/v1'),
				'OPENAI_API_KEY',
			),
		).toContain('--fallback-api-key');
		expect(
			environmentKeyRefusal(
				openai('https://proxy.example/v1'),
				openai('https://proxy.example.evil.test/v1'),
				'OPENAI_API_KEY',
			),
		).toContain('--fallback-api-key');
		expect(
			environmentKeyRefusal(openai('file:///a'), openai('file:///a'), 'OPENAI_API_KEY'),
		).toContain('--fallback-api-key');
		// The other provider's variable is the fallback's own: the primary never sends it.
		expect(
			environmentKeyRefusal(
				openai('https://proxy.example/v1'),
				{ provider: 'gemini', apiKey: 'g', baseUrl: 'http://127.0.0.1:1' },
				'GEMINI_API_KEY',
			),
		).toBeUndefined();
	});
});
