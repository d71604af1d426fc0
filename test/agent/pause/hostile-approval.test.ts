import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../nodes/AgentCore/AgentCore.node';
import { ConfigError } from '../../../src/settings/config';
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { SealedValue } from '../../../src/run-state/sealed-value';
import {
	RunStateError,
	signRunState,
	type SignedRunState,
} from '../../../src/run-state/signed-state';
import { RedisUsedStates } from '../../../src/run-state/used-states';
import type { AgentResult } from '../../../src/trace/types';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import { runCli } from '../../support/cli';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';
import { runWorkflow } from '../../support/n8n-engine';
import { rejectionOf } from '../../support/rejection';
import { deleteKeysByPrefix, useTestRedis } from '../../support/redis';
import { createInputNode, connectInSequence, createNode } from '../../support/test-nodes';
import { useEventLoopWatchdog } from '../../support/watchdog';

useLoopbackGuard();

/**
 * Issue #26, approval and run state, attacked as an adversary holding a copy of a state (from a log, a
 * workflow's data, an approval e-mail) would: replay it, edit it, splice it, forge it with a weak key, or
 * feed something that is no state at all. Each must be refused naming run_state, with nothing run.
 */

const SECRET = 'hostile-approval-3f1c9a7e0b5d2c8f6a4e';
const DAY_MS = 86_400_000;
const API_KEY = 'live-key-7Qm2Zp9Xc4Lk';
type State = SignedRunState<{
	sealed: SealedValue;
	pending: { tool: string; args: Record<string, any> };
}>;

/** The state with `change` applied to its payload, signed again with `secret`: what only a key holder could make. */
function resigned(
	state: State,
	change: (payload: State['payload']) => void,
	secret = SECRET,
): State {
	const payload = structuredClone(state.payload);
	change(payload);
	const { id, config_hash, created_at, ...rest } = payload;
	return signRunState(rest, secret, config_hash, { id, now: new Date(created_at) }) as State;
}

const flip = (text: string, at: number) =>
	text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
/** The CLI's last stderr line (before it, resume without --redis-url warns that the state is not recorded). */
const lastLine = (text: string) => text.trimEnd().split('\n').pop();
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('approval under attack: the library', () => {
	useEventLoopWatchdog('approval');
	const server = useScriptedServer();
	const redis = useTestRedis();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((request, response) =>
			sendJson(response, { charged: JSON.parse(request.body || '{}').amount }),
		);
	});

	const config = () => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['http_request'],
		approval_required: ['http_request'],
		tool_settings: { http_request: PRIVATE_ALLOWED },
	});

	async function pausedState(amount = 42): Promise<State> {
		server().setScript([
			action('http_request', {
				url: `${payments.url}/charge?api_key=${API_KEY}`,
				method: 'POST',
				body: { amount },
			}),
		]);
		const paused = await runAgent({
			model: modelFor(server()),
			config: config(),
			prompt: `Charge ${amount} EUR.`,
			stateSecret: SECRET,
		});
		expect(paused.finish_reason).toBe('awaiting_approval');
		server().requests.length = 0;
		return JSON.parse(JSON.stringify(paused.run_state));
	}

	const resume = (runState: unknown, extra: Record<string, unknown> = {}): Promise<AgentResult> =>
		resumeAgent({
			model: modelFor(server()),
			config: config(),
			runState,
			decision: { approve: true },
			stateSecret: SECRET,
			...extra,
		});

	/** The refusal of resuming `runState`, after checking that nothing ran: no model call, no request to the target. */
	async function refusal(
		runState: unknown,
		extra: Record<string, unknown> = {},
	): Promise<RunStateError> {
		const error = await rejectionOf(resume(runState, extra));
		expect(server().requests).toHaveLength(0);
		expect(payments.requests).toHaveLength(0);
		return error;
	}

	const ALTERED = /^run_state was altered, or signed with another key/;
	const SEALED_REFUSED =
		/^run_state's sealed part does not open: it was altered, taken from another state, or sealed with another key/;

	it('a replayed approved state is refused while Redis remembers it, and by its age once the used-mark is gone', async () => {
		const state = await pausedState();
		const prefix = redis.keyPrefix('hostile-replay');
		const used = new RedisUsedStates({ connection: { url: redis.url }, keyPrefix: prefix });
		try {
			server().setScript([final('Charged.'), final('Charged again?')]);
			await resume(state, { usedStates: used });
			expect(payments.requests).toHaveLength(1);
			expect(await rejectionOf(resume(state, { usedStates: used }))).toMatchObject({
				field: 'run_state',
				message: 'run_state was already used to resume this run; a paused run resumes once',
			});
			// The used-mark expires after 30 days; the state is refused from day 7 on.
			await deleteKeysByPrefix(redis.admin, prefix);
			jest.useFakeTimers({
				doNotFake: [
					'nextTick',
					'setImmediate',
					'clearImmediate',
					'setInterval',
					'clearInterval',
					'setTimeout',
					'clearTimeout',
					'queueMicrotask',
					'hrtime',
					'performance',
				],
			});
			jest.setSystemTime(Date.parse(state.payload.created_at) + 7 * DAY_MS + 60_000);
			const replay = await rejectionOf(resume(state, { usedStates: used }));
			expect(replay).toBeInstanceOf(RunStateError);
			expect(replay.message).toBe(
				`run_state is older than run_state_max_age_days (7 days): it was made at ${state.payload.created_at}; run the task again to pause it anew, or raise run_state_max_age_days (at most 30)`,
			);
		} finally {
			jest.useRealTimers();
			await used.close();
		}
		expect(payments.requests).toHaveLength(1);
	});

	it.each<[string, (sealed: SealedValue) => SealedValue]>([
		['its sealed data', (sealed) => ({ ...sealed, data: flip(sealed.data, 10) })],
		['its IV', (sealed) => ({ ...sealed, iv: flip(sealed.iv, 2) })],
		['its tag', (sealed) => ({ ...sealed, tag: flip(sealed.tag, 2) })],
	])(
		'a state with %s edited is refused as altered; re-signed with the key, its sealed part still does not open',
		async (_part, edit) => {
			const state = await pausedState();
			const edited = structuredClone(state);
			edited.payload.sealed = edit(edited.payload.sealed);
			expect(await refusal(edited)).toMatchObject({
				name: 'RunStateError',
				field: 'run_state',
				message: expect.stringMatching(ALTERED),
			});
			const resignedEdit = resigned(state, (payload) => (payload.sealed = edit(payload.sealed)));
			expect(await refusal(resignedEdit)).toMatchObject({
				name: 'RunStateError',
				field: 'run_state',
				message: expect.stringMatching(SEALED_REFUSED),
			});
		},
	);

	it('a sealed call moved from one state into another is refused, signed again or not: it opens only in its own state', async () => {
		const big = await pausedState(4200);
		const small = await pausedState(1);
		const spliced = structuredClone(small);
		spliced.payload.sealed = big.payload.sealed;
		expect((await refusal(spliced)).message).toMatch(ALTERED);
		expect(
			(await refusal(resigned(small, (payload) => (payload.sealed = big.payload.sealed)))).message,
		).toMatch(SEALED_REFUSED);
	});

	it('the call shown to the approver cannot be changed to look harmless: the signature covers it', async () => {
		const state = await pausedState(4200);
		const disguised = structuredClone(state);
		disguised.payload.pending.args.body.amount = 1;
		expect((await refusal(disguised)).message).toMatch(ALTERED);
	});

	it("created_at moved forward to extend a state's life breaks its signature", async () => {
		const state = await pausedState();
		const younger = structuredClone(state);
		younger.payload.created_at = new Date(Date.now() + 60_000).toISOString();
		expect((await refusal(younger)).message).toMatch(ALTERED);
	});

	it('a state dated more than five minutes ahead is refused; two minutes ahead (clock skew) it resumes', async () => {
		const state = await pausedState();
		const ahead = (minutes: number) =>
			resigned(
				state,
				(payload) => (payload.created_at = new Date(Date.now() + minutes * 60_000).toISOString()),
			);
		expect((await refusal(ahead(10))).message).toMatch(
			/^run_state was made in the future \(.*\): the clock of the machine that paused the run is ahead by more than 5 minutes/,
		);
		server().setScript([final('Charged.')]);
		expect((await resume(ahead(2))).finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(1);
	});

	it.each([' '.repeat(16), 'a'.repeat(64), 'ab'.repeat(16), 'abcdefghijklmno'])(
		'a signing key like %j is refused before a state is made or opened',
		async (weak) => {
			const forged = resigned(await pausedState(), () => undefined, weak);
			const withApproval = await rejectionOf(resume(forged, { stateSecret: weak }));
			expect(withApproval).toBeInstanceOf(ConfigError);
			expect(withApproval).toMatchObject({
				key: 'approval_required',
				message: expect.stringMatching(
					/^pausing for approval needs a signing key of at least 16 characters, 8 of them different.*openssl rand -hex 32/,
				),
			});
			// A resuming config without approval_required still checks the key before opening the state.
			const withoutApproval = await rejectionOf(
				resumeAgent({
					model: modelFor(server()),
					config: { ...config(), approval_required: [] },
					runState: forged,
					decision: { approve: true },
					stateSecret: weak,
				}),
			);
			expect(withoutApproval).toMatchObject({
				name: 'RunStateError',
				field: 'run_state',
				message: expect.stringMatching(
					/^run_state cannot be checked: pausing for approval needs a signing key/,
				),
			});
			expect(
				await rejectionOf(
					runAgent({
						model: modelFor(server()),
						config: config(),
						prompt: 'Charge 1 EUR.',
						stateSecret: weak,
					}),
				),
			).toBeInstanceOf(ConfigError);
			expect(server().requests).toHaveLength(0);
			expect(payments.requests).toHaveLength(0);
		},
	);

	it('a run_state nested 100,000 deep is a RunStateError naming run_state, as a value and as text, with no model call', async () => {
		const text = nested(100_000);
		for (const runState of [
			text,
			JSON.parse(text),
			`{"v":2,"payload":{"trace":${text}},"signature":"00"}`,
		]) {
			const error = await refusal(runState);
			expect(error).toBeInstanceOf(RunStateError);
			expect(error.message).toBe(
				"run_state is nested deeper than 128 levels, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged",
			);
		}
	});

	it('a 40 MB run_state is refused without being signed or copied, as text and as a value', async () => {
		const huge = {
			v: 2,
			payload: { step: 1, trace: [{ observation: 'x'.repeat(40_000_000) }] },
			signature: '0'.repeat(64),
		};
		expect((await refusal(huge)).message).toMatch(/^run_state is larger than 32000000 characters/);
		expect((await refusal(JSON.stringify(huge))).message).toMatch(
			/^run_state is larger than 32000000 characters/,
		);
	});

	it("a secret-bearing write made before the pause is not sent again after it: the loop breaker's memory comes back exact", async () => {
		const withTransform = {
			...config(),
			allowed_tools: ['http_request', 'json_transform'],
			approval_required: ['json_transform'],
		};
		const write = action('http_request', {
			url: `${payments.url}/charge?api_key=${API_KEY}`,
			method: 'POST',
			body: { amount: 42 },
		});
		server().setScript([write, action('json_transform', { data: { a: 1 }, expression: 'a' })]);
		const paused = await runAgent({
			model: modelFor(server()),
			config: withTransform,
			prompt: 'Charge 42 EUR once.',
			stateSecret: SECRET,
		});
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(JSON.stringify(paused)).not.toContain(API_KEY);
		server().setScript([write, final('Charged once.')]);
		const result = await resume(paused.run_state, { config: withTransform });
		expect(result.finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(1);
		expect(result.trace[2].repeat_of).toBe(1);
		// The model reads its own earlier reply as it wrote it, as in a run that never paused.
		expect(
			server().requests[server().requests.length - 1].messages.filter(
				(message) => message.role === 'assistant',
			)[0].content,
		).toBe(write);
	});

	it('a version-1 state, which held only the redacted call, is refused with the way out', async () => {
		const state = await pausedState();
		expect((await refusal({ ...state, v: 1 })).message).toBe(
			'run_state was made by Agent Core 0.1, whose states kept only the redacted call: run the task again to pause it anew',
		);
	});
});

describe('approval under attack: the command line', () => {
	useEventLoopWatchdog('approval');
	const server = useScriptedServer();
	const environment = { AGENT_CORE_STATE_SECRET: SECRET };
	let folder: string;
	let payments: TestServer;
	beforeAll(() => (folder = mkdtempSync(join(tmpdir(), 'agent-core-hostile-approval-'))));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	beforeEach(async () => {
		payments = await startServer((_, response) => sendJson(response, { charged: true }));
	});

	const write = (name: string, text: string) => {
		const path = join(folder, name);
		writeFileSync(path, text);
		return path;
	};
	const configFile = (extra: Record<string, unknown> = {}) =>
		write(
			'config.json',
			JSON.stringify({
				model: 'm',
				allowed_tools: ['http_request'],
				approval_required: ['http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
				...extra,
			}),
		);
	const provider = () => ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];
	const resume = (state: string, config = configFile(), env = environment) =>
		runCli(['resume', '--config', config, '--state', state, '--approve', ...provider()], env);

	async function pausedState(): Promise<State> {
		server().setScript([
			action('http_request', { url: `${payments.url}/charge?api_key=${API_KEY}`, method: 'POST' }),
		]);
		const run = await runCli(
			['run', '--config', configFile(), '--prompt', 'Charge it.', ...provider()],
			environment,
		);
		expect(run.code).toBe(0);
		server().requests.length = 0;
		return JSON.parse(run.stdout).run_state;
	}

	it('a --state file nested 100,000 deep is exit 2 naming run_state, with no model call', async () => {
		const refused = await resume(write('deep.json', nested(100_000)));
		expect(refused).toMatchObject({ code: 2, stdout: '' });
		expect(lastLine(refused.stderr)).toBe(
			"agent-core: run_state is nested deeper than 128 levels, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged",
		);
		expect(server().requests).toHaveLength(0);
	});

	it('a state eight days old is exit 2 under the default week, and resumes under run_state_max_age_days 30', async () => {
		const state = await pausedState();
		const old = resigned(
			state,
			(payload) => (payload.created_at = new Date(Date.now() - 8 * DAY_MS).toISOString()),
		);
		const path = write('old.json', JSON.stringify(old));
		const refused = await resume(path);
		expect(refused.code).toBe(2);
		expect(lastLine(refused.stderr)).toMatch(
			/^agent-core: run_state is older than run_state_max_age_days \(7 days\)/,
		);
		expect(server().requests).toHaveLength(0);
		server().setScript([final('Charged.')]);
		const accepted = await resume(path, configFile({ run_state_max_age_days: 30 }));
		expect(accepted.code).toBe(0);
		expect(payments.requests.map((request) => request.url)).toEqual([`/charge?api_key=${API_KEY}`]);
	});

	it('run_state_max_age_days above 30 is exit 2 naming the key, before any model call', async () => {
		const refused = await runCli(
			[
				'run',
				'--config',
				configFile({ run_state_max_age_days: 31 }),
				'--prompt',
				'Charge it.',
				...provider(),
			],
			environment,
		);
		expect(refused).toMatchObject({
			code: 2,
			stderr: expect.stringContaining(
				'run_state_max_age_days must be a number of days from 0.001 to 30',
			),
		});
		expect(server().requests).toHaveLength(0);
	});

	it('a state forged with a key of 16 spaces is refused with exit 2 when resumed with that key', async () => {
		const forged = resigned(await pausedState(), () => undefined, ' '.repeat(16));
		const refused = await resume(write('forged.json', JSON.stringify(forged)), configFile(), {
			AGENT_CORE_STATE_SECRET: ' '.repeat(16),
		});
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain('(this one has 16 characters, 1 of them different)');
		expect(server().requests).toHaveLength(0);
		expect(payments.requests).toHaveLength(0);
	});
});

describe('approval under attack: the node in n8n’s engine', () => {
	useEventLoopWatchdog('approval');
	const server = useScriptedServer();

	const run = (
		runState: unknown,
		signingSecret = SECRET,
		parameters: INodeParameters = { operation: 'resume', decision: 'approve' },
	) =>
		runWorkflow({
			nodes: [
				createInputNode([{ run_state: runState as IDataObject, prompt: 'Charge it.' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: {
						model: { __rl: true, mode: 'id', value: 'm' },
						allowedTools: ['http_request'],
						needsApproval: true,
						approvalTools: ['http_request'],
						...parameters,
					},
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							agentCoreRunStateApi: { id: '4', name: 'Run State' },
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				agentCoreRunStateApi: { signingSecret },
			},
		});

	it('a Run State nested 100,000 deep fails the node naming run_state (not a RangeError), with no model call', async () => {
		// As text in the Run State field: n8n's own item storage cannot hold a value this deep (its JSON.stringify overflows).
		const result = await run(undefined, SECRET, {
			operation: 'resume',
			decision: 'approve',
			runState: nested(100_000),
		});
		expect(result.errorOf('Agent Core')?.message).toBe(
			"run_state is nested deeper than 128 levels, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged",
		);
		expect(server().requests).toHaveLength(0);
	});

	it('a Run State credential of 16 spaces fails the node with the fix, with no model call', async () => {
		const result = await run(undefined, ' '.repeat(16), {});
		expect(result.errorOf('Agent Core')?.message).toMatch(
			/^pausing for approval needs a signing key of at least 16 characters, 8 of them different, so that nobody can guess it and alter the paused run \(this one has 16 characters, 1 of them different\): generate one with `openssl rand -hex 32`/,
		);
		expect(server().requests).toHaveLength(0);
	});
});
