import { ConfigError } from '../../../src/settings/config';
import { OPEN_HTTP_REQUEST_NOTICE } from '../../../src/agent/setup/configure-run';
import { InputError } from '../../../src/core/input-error';
import { observationMessage } from '../../../src/agent/protocol/prompt';
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import { RunStateError } from '../../../src/run-state/signed-state';
import { MemoryUsedStates, RedisUsedStates } from '../../../src/run-state/used-states';
import { action, final, lastUserMessage, modelFor, useScriptedServer } from '../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';
import { rejectionOf } from '../../support/rejection';
import { useTestRedis } from '../../support/redis';

useLoopbackGuard();

/** Issue #18: a call that needs a person's yes pauses the run; the signed state resumes it exactly once, anywhere. */
describe('approval of tool calls', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	const SECRET = 'approval-test-secret-0123456789';
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((request, response) =>
			sendJson(response, { charged: JSON.parse(request.body || '{}').amount }),
		);
	});

	const config = () => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['http_request', 'json_transform'],
		approval_required: ['http_request'],
		tool_settings: { http_request: PRIVATE_ALLOWED },
	});
	const charge = () =>
		action('http_request', { url: `${payments.url}/charge`, method: 'POST', body: { amount: 42 } });

	/** A run that asks to charge 42: paused before the charge. */
	async function pausedRun() {
		server().setScript([charge()]);
		return runAgent({
			model: modelFor(server()),
			config: config(),
			prompt: 'Charge the customer 42 EUR.',
			stateSecret: SECRET,
		});
	}

	const resume = (runState: unknown, decision: unknown, extra: Record<string, unknown> = {}) =>
		resumeAgent({
			model: modelFor(server()),
			config: config(),
			runState,
			decision: decision as never,
			stateSecret: SECRET,
			...extra,
		});

	it('pauses before the call: the target is untouched, the pending action and a signed state come out', async () => {
		const paused = await pausedRun();
		expect(payments.requests).toHaveLength(0);
		expect(paused).toMatchObject({
			finish_reason: 'awaiting_approval',
			stop_detail: "http_request waits for a person's approval",
			pending_action: {
				tool: 'http_request',
				args: { url: `${payments.url}/charge`, method: 'POST', body: { amount: 42 } },
			},
			run_state: { v: 2, signature: expect.stringMatching(/^[0-9a-f]{64}$/) },
		});
		expect(paused.trace).toHaveLength(1);
		expect(paused.trace[0].action?.tool).toBe('http_request');
	});

	it('approve runs the call exactly once and the run goes on to final, its steps numbered on', async () => {
		const paused = await pausedRun();
		server().setScript([final('Charged 42 EUR.')]);
		const result = await resume(paused.run_state, { approve: true });
		expect(payments.requests.map((request) => request.method)).toEqual(['POST']);
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Charged 42 EUR.' });
		expect(result.trace.map((step) => step.step)).toEqual([1, 2]);
		expect(result.trace[0].observation).toMatch(/^HTTP 200 OK/);
		expect(result.used_tools.http_request.count).toBe(1);
		// The model continued the same conversation: the user's request, its own call, the observation.
		const messages = server().requests[server().requests.length - 1].messages;
		expect(messages.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
		expect(messages[messages.length - 1].content).toBe(
			observationMessage('http_request', result.trace[0].observation!),
		);
	});

	it('deny never reaches the target and tells the model the person’s reason', async () => {
		const paused = await pausedRun();
		server().setScript([final('I did not charge the customer.')]);
		const result = await resume(paused.run_state, { deny: 'the customer already paid by card' });
		expect(payments.requests).toHaveLength(0);
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(server(), server().requests.length - 1)).toContain(
			'A person refused this http_request call, and it was not run. Their reason: the customer already paid by card.',
		);
	});

	it('edit runs the call with the new arguments; arguments that break the schema are refused without using the state', async () => {
		const paused = await pausedRun();
		const badEdit = await rejectionOf(resume(paused.run_state, { edit: { url: 42 } }));
		expect(badEdit).toBeInstanceOf(InputError);
		expect(badEdit).toMatchObject({
			field: 'decision.edit',
			message: expect.stringContaining('args.url: must be string'),
		});
		server().setScript([final('Charged 40 EUR.')]);
		const used = new MemoryUsedStates();
		const result = await resume(
			paused.run_state,
			{ edit: { url: `${payments.url}/charge`, method: 'POST', body: { amount: 40 } } },
			{ usedStates: used },
		);
		expect(payments.requests.map((request) => JSON.parse(request.body))).toEqual([{ amount: 40 }]);
		// Step 1 also says http_request (allowed without allowed_domains) may reach any public host.
		expect(result.trace[0]).toMatchObject({
			action: { args: { body: { amount: 40 } } },
			notices: [OPEN_HTTP_REQUEST_NOTICE, 'a person edited the arguments before the call ran'],
		});
	});

	it('refuses a tampered state, another key, another config and a second resume, each naming run_state', async () => {
		const paused = await pausedRun();
		const tampered = JSON.parse(JSON.stringify(paused.run_state));
		tampered.payload.pending.args.body.amount = 4200;
		expect(await rejectionOf(resume(tampered, { approve: true }))).toMatchObject({
			field: 'run_state',
			message: expect.stringMatching(/^run_state was altered/),
		});
		expect(
			await rejectionOf(
				resume(paused.run_state, { approve: true }, { stateSecret: 'another-secret-0123456789' }),
			),
		).toBeInstanceOf(RunStateError);
		const otherConfig = await rejectionOf(
			resumeAgent({
				model: modelFor(server()),
				config: { ...config(), max_steps: 9 },
				runState: paused.run_state,
				decision: { approve: true },
				stateSecret: SECRET,
			}),
		);
		expect(otherConfig.message).toMatch(/^run_state was made for another config/);

		const used = new RedisUsedStates({
			connection: { url: redis.url },
			keyPrefix: redis.keyPrefix('approval'),
		});
		try {
			server().setScript([final('done'), final('done again')]);
			await resume(paused.run_state, { approve: true }, { usedStates: used });
			const replay = await rejectionOf(
				resume(paused.run_state, { approve: true }, { usedStates: used }),
			);
			expect(replay).toBeInstanceOf(RunStateError);
			expect(replay.message).toBe(
				'run_state was already used to resume this run; a paused run resumes once',
			);
		} finally {
			await used.close();
		}
		expect(payments.requests).toHaveLength(1);
	});

	it('approve sends exactly the call the model asked for, secrets included, while the state and every output show them redacted', async () => {
		const secrets = {
			apiKey: 'live-key-7Qm2Zp9Xc4Lk',
			bearer: 'bearer-5d1e8a0f3b7c9e2a',
			token: 'tok_3f9a8b7c6d5e4f',
			password: 'correct horse battery staple',
			jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLWhlcmU',
		};
		const body = {
			amount: 42,
			token: secrets.token,
			password: secrets.password,
			note: `invoice 7, session ${secrets.jwt}`,
		};
		const args = {
			url: `${payments.url}/charge?api_key=${secrets.apiKey}&currency=EUR`,
			method: 'POST',
			headers: { authorization: `Bearer ${secrets.bearer}`, 'x-request-id': 'r-1' },
			body,
		};
		server().setScript([action('http_request', args)]);
		const events: unknown[] = [];
		const paused = await runAgent({
			model: modelFor(server()),
			config: config(),
			prompt: 'Charge the customer 42 EUR.',
			stateSecret: SECRET,
			onEvent: (event) => events.push(event),
		});
		expect(paused.finish_reason).toBe('awaiting_approval');
		// The person deciding sees the call, its secrets redacted.
		expect(paused.pending_action).toEqual({
			tool: 'http_request',
			args: {
				url: `${payments.url}/charge?api_key=[REDACTED]&currency=EUR`,
				method: 'POST',
				headers: { authorization: '[REDACTED]', 'x-request-id': 'r-1' },
				body: {
					amount: 42,
					token: '[REDACTED]',
					password: '[REDACTED]',
					note: 'invoice 7, session [REDACTED]',
				},
			},
		});
		server().setScript([final('Charged 42 EUR.')]);
		const resumed = await resume(
			JSON.parse(JSON.stringify(paused.run_state)),
			{ approve: true },
			{ onEvent: (event: unknown) => events.push(event) },
		);
		expect(resumed.finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(1);
		const [received] = payments.requests;
		expect(received.url).toBe(`/charge?api_key=${secrets.apiKey}&currency=EUR`);
		expect(received.headers).toMatchObject({
			authorization: `Bearer ${secrets.bearer}`,
			'x-request-id': 'r-1',
		});
		expect(JSON.parse(received.body)).toEqual(body);
		const everythingWritten = JSON.stringify([paused, resumed, events]);
		for (const secret of Object.values(secrets)) expect(everythingWritten).not.toContain(secret);
		expect(resumed.trace[0].action?.args).toEqual(paused.pending_action?.args);
	});

	it('a run paused on OpenAI resumes on Gemini', async () => {
		const paused = await pausedRun();
		server().setScript([final('Charged, said Gemini.')]);
		const result = await resumeAgent({
			model: modelFor(server(), 'gemini'),
			config: { ...config(), model: 'gemini-2.5-flash' },
			runState: paused.run_state,
			decision: { approve: true },
			stateSecret: SECRET,
		});
		expect(result).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Charged, said Gemini.',
			provider: 'gemini',
		});
		expect(server().requests[server().requests.length - 1].provider).toBe('gemini');
		expect(payments.requests).toHaveLength(1);
	});

	it('refuses to run a config with approval_required without a signing key, or for a tool that is not allowed', async () => {
		const noKey = await rejectionOf(
			runAgent({ model: modelFor(server()), config: config(), prompt: 'q' }),
		);
		expect(noKey).toBeInstanceOf(ConfigError);
		expect(noKey).toMatchObject({
			key: 'approval_required',
			message: expect.stringContaining('AGENT_CORE_STATE_SECRET'),
		});
		const notAllowed = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: { ...config(), approval_required: ['feishu_bot'] },
				prompt: 'q',
				stateSecret: SECRET,
			}),
		);
		expect(notAllowed).toMatchObject({
			key: 'approval_required',
			message: expect.stringContaining('"feishu_bot", which is not in allowed_tools'),
		});
		expect(server().requests).toHaveLength(0);
	});

	it('does not pause for tools that need no approval', async () => {
		server().setScript([
			action('json_transform', { data: [1, 2], expression: 'length(@)' }),
			final('two'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			prompt: 'q',
			stateSecret: SECRET,
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'two' });
		expect(result).not.toHaveProperty('run_state');
	});
});
