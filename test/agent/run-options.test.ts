import {
	ConfigError,
	createChatModel,
	InputError,
	MemoryUsedStates,
	resumeAgent,
	runAgent,
	type AgentResult,
} from '../../src/index';
import { action, final, modelFor, useScriptedServer } from '../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startCanary,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../support/servers/http-servers';

/**
 * Issue #48: runAgent and resumeAgent took any unknown option (`promt`, `maxSteps`) as a no-op. Now it is an
 * InputError naming it, before any model, MCP server or tool is contacted: the model and the MCP server here
 * are a canary that must never be reached, and the loopback guard fails a test that left the machine.
 */
describe('runAgent and resumeAgent refuse an option they do not know, before any connection', () => {
	useLoopbackGuard();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	const canaryModel = () =>
		createChatModel({ provider: 'openai', apiKey: 'k', baseUrl: canary.url, maxRetries: 0 });
	const config = { model: 'gpt-4o-mini' };

	/** The error the call rejected with (a run that ends is a failure of the test). */
	const refusal = (call: () => Promise<AgentResult>) =>
		call().then(
			(result) => new Error(`not refused: the run ended ${result.finish_reason}`),
			(error: unknown) => error,
		);

	it('runAgent with promt: refused naming promt and prompt', async () => {
		const error = await refusal(() =>
			runAgent({ model: canaryModel(), config, promt: 'hi', messages: [] } as never),
		);
		expect(error).toBeInstanceOf(InputError);
		expect(error).toMatchObject({
			field: 'promt',
			fix: 'Rename promt to prompt.',
		});
		expect((error as Error).message).toMatch(
			/^runAgent: unknown option "promt" \(did you mean "prompt"\?\); known options: model, config, prompt, /,
		);
	});

	it('runAgent with a misspelt audit target field: refused before the model is asked, not after the answer', async () => {
		const postgres = {
			host: '127.0.0.1',
			port: 5432,
			user: 'postgres',
			pasword: 'x',
			database: 'd',
		};
		const error = await refusal(() =>
			runAgent({ model: canaryModel(), config, prompt: 'hi', audit: { postgres } } as never),
		);
		expect(error).toBeInstanceOf(InputError);
		expect(error).toMatchObject({ field: 'pasword' });
		expect((error as Error).message).toMatch(
			/^runAgent audit\.postgres: unknown option "pasword" \(did you mean "password"\?\)/,
		);
	});

	it('runAgent with maxSteps: refused, saying it is config.max_steps', async () => {
		const error = await refusal(() =>
			runAgent({ model: canaryModel(), config, prompt: 'hi', maxSteps: 3 } as never),
		);
		expect(error).toBeInstanceOf(InputError);
		expect(error).toMatchObject({ field: 'maxSteps' });
		expect((error as Error).message).toMatch(
			/^runAgent: unknown option "maxSteps" \(a config key: give it as config\.max_steps\);/,
		);
	});

	it('runAgent refuses before its MCP servers are connected', async () => {
		const mcp = {
			model: 'gpt-4o-mini',
			allowed_tools: ['local.echo'],
			mcp_servers: [{ name: 'local', url: `${canary.url}/mcp`, allow_private_network: true }],
		};
		const error = await refusal(() =>
			runAgent({ model: canaryModel(), config: mcp, prompt: 'hi', stateSecrets: 'x' } as never),
		);
		expect(error).toMatchObject({ name: 'InputError', field: 'stateSecrets' });
	});

	it('an unknown option whose value is undefined is refused too, and so is no options object at all', async () => {
		const error = await refusal(() =>
			runAgent({ model: canaryModel(), config, prompt: 'hi', sessionID: undefined } as never),
		);
		expect(error).toMatchObject({ name: 'InputError', field: 'sessionID' });
		const notAnObject = await refusal(() => runAgent(undefined as never));
		expect(notAnObject).toMatchObject({ name: 'InputError', field: 'options' });
	});

	it('config keys were refused already: config.max_stepz is a ConfigError naming it', async () => {
		const error = await refusal(() =>
			runAgent({
				model: canaryModel(),
				config: { ...config, max_stepz: 3 } as never,
				prompt: 'hi',
			}),
		);
		expect(error).toBeInstanceOf(ConfigError);
		expect(error).toMatchObject({ field: 'max_stepz' });
	});
});

describe('resumeAgent refuses an unknown option before the state is used', () => {
	useLoopbackGuard();
	const server = useScriptedServer();
	const SECRET = 'options-test-secret-0123456789';
	let payments: TestServer;
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
		payments = await startServer((request, response) => sendJson(response, { charged: true }));
	});
	const config = () => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['http_request'],
		approval_required: ['http_request'],
		tool_settings: { http_request: PRIVATE_ALLOWED },
	});

	it('prompt (a run option resume does not take) and decison are refused; the state still resumes once', async () => {
		server().setScript([action('http_request', { url: `${payments.url}/charge` }), final('done')]);
		const paused = await runAgent({
			model: modelFor(server()),
			config: config(),
			prompt: 'Charge it.',
			stateSecret: SECRET,
		});
		expect(paused.finish_reason).toBe('awaiting_approval');
		const usedStates = new MemoryUsedStates();
		const canaryModel = createChatModel({ provider: 'openai', apiKey: 'k', baseUrl: canary.url });
		const resume = (extra: Record<string, unknown>) =>
			resumeAgent({
				model: canaryModel,
				config: config(),
				runState: paused.run_state,
				stateSecret: SECRET,
				usedStates,
				...extra,
			} as never);

		await expect(resume({ decision: { approve: true }, prompt: 'and more' })).rejects.toMatchObject(
			{
				name: 'InputError',
				field: 'prompt',
				message: expect.stringMatching(/^resumeAgent: unknown option "prompt"; known options: /),
			},
		);
		const typo = resume({ decison: { approve: true } });
		await expect(typo).rejects.toBeInstanceOf(InputError);
		await expect(typo).rejects.toMatchObject({
			field: 'decison',
			fix: 'Rename decison to decision.',
		});
		expect(payments.requests).toHaveLength(0);
		expect(canary.connections).toBe(0);

		// Nothing was used up: the same state resumes with the options spelt right.
		const resumed = await resumeAgent({
			model: modelFor(server()),
			config: config(),
			runState: paused.run_state,
			decision: { approve: true },
			stateSecret: SECRET,
			usedStates,
		});
		expect(resumed.finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(1);
	});
});
