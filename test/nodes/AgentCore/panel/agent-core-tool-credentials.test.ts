import type { ICredentialsDecrypted, ICredentialTestFunctions, IDataObject } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import {
	testFeishuCredential,
	testHttpHeaderCredential,
} from '../../../../nodes/AgentCore/execute/inputs/tool-credentials';
import { action, final, useScriptedServer } from '../../../support/agent';
import { SECRET, startFakeFeishu, type FakeFeishu } from '../../../support/servers/feishu';
import {
	sendJson,
	startCanary,
	startServer,
	useLoopbackGuard,
} from '../../../support/servers/http-servers';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

// The HTTP targets and the fake Feishu bot all listen on loopback; the guard refuses anything else.
useLoopbackGuard();

const HEADER_SECRET = 'cred-secret-7f3a9c';

describe('Agent Core: tool credentials chosen on the node', () => {
	const server = useScriptedServer();
	let feishu: FakeFeishu;

	beforeAll(async () => {
		feishu = await startFakeFeishu();
	});
	afterAll(async () => {
		await feishu.close();
	});

	/** Runs one item through Agent Core with the given panel values and credentials (type → data). */
	function run(parameters: IDataObject, credentials: Record<string, IDataObject>) {
		const chosen = Object.fromEntries(
			Object.keys(credentials).map((type, index) => [type, { id: String(10 + index), name: type }]),
		);
		return runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'go' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' }, ...chosen } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				...credentials,
			},
		});
	}

	// The targets speak plain http on loopback, so the header may travel in clear here.
	const httpTool = (
		settings: IDataObject = {
			http_request: { allow_private_network: true, allow_insecure_headers: true },
		},
	) => ({
		allowedTools: ['http_request'],
		toolSettingsJson: JSON.stringify(settings),
	});
	const headerCredential = (overrides: IDataObject = {}) => ({
		agentCoreHttpHeaderApi: {
			headerName: 'X-Api-Key',
			headerSecret: HEADER_SECRET,
			allowedDomains: '127.0.0.1, api.example.test',
			...overrides,
		},
	});

	it('sends the header credential to its hosts and keeps its value out of the output', async () => {
		const target = await startServer((request, response) =>
			sendJson(response, { received: request.headers['x-api-key'] }),
		);
		server().setScript([action('http_request', { url: `${target.url}/data` }), final('done')]);
		const result = await run(httpTool(), headerCredential());
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(target.requests[0].headers['x-api-key']).toBe(HEADER_SECRET);
		const output = JSON.stringify(result.outputOf('Agent Core')[0].json);
		expect(output).toContain('"finish_reason":"final"');
		expect(output).toContain('[REDACTED]');
		expect(output).not.toContain(HEADER_SECRET);
		// Not in what the model read either: the secret travelled in the request only.
		expect(JSON.stringify(server().requests.map((request) => request.messages))).not.toContain(
			HEADER_SECRET,
		);
	});

	it('refuses to send the header over plain http unless Tool Settings allow insecure headers', async () => {
		const canary = await startCanary();
		server().setScript([action('http_request', { url: `${canary.url}/data` }), final('gave up')]);
		const result = await run(
			httpTool({ http_request: { allow_private_network: true } }),
			headerCredential(),
		);
		const trace = result.outputOf('Agent Core')[0].json.trace as IDataObject[];
		expect((trace[0].error as IDataObject).message).toMatch(
			/the configured headers \(x-api-key\) are sent only over https to the default port, and http:\/\/127\.0\.0\.1:\d+ is plain http/,
		);
		expect(canary.connections).toBe(0);
	});

	it('calls no host outside the credential’s Allowed Domains', async () => {
		const canary = await startCanary();
		server().setScript([action('http_request', { url: canary.url }), final('gave up')]);
		const result = await run(httpTool(), headerCredential({ allowedDomains: 'api.example.test' }));
		const trace = result.outputOf('Agent Core')[0].json.trace as IDataObject[];
		expect((trace[0].error as IDataObject).message).toMatch(
			/127\.0\.0\.1 is not in allowed_domains/,
		);
		expect(canary.connections).toBe(0);
	});

	it.each([
		[
			{ http_request: { allow_private_network: true, allowed_domains: ['127.0.0.1'] } },
			{},
			'Tool Settings (JSON) lists allowed_domains too',
		],
		[
			{ http_request: { allow_private_network: true, headers: { 'x-api-key': 'other' } } },
			{},
			'The header X-Api-Key is set both in',
		],
		[undefined, { headerName: 'X Api Key' }, 'is not a valid HTTP header name: "X Api Key"'],
		[
			undefined,
			{ allowedDomains: 'https://api.example.test/v1' },
			'"https://api.example.test/v1" is not a host name: it has a scheme and a path',
		],
		[
			undefined,
			{ allowedDomains: '127.0.0.1, api.example.test:8443' },
			'"api.example.test:8443" is not a host name: it has a port',
		],
		[undefined, { allowedDomains: ' , ' }, 'lists no Allowed Domains'],
	])(
		'refuses an unclear header set-up before any call: %j %j',
		async (settings, overrides, message) => {
			const canary = await startCanary();
			server().setScript([action('http_request', { url: canary.url }), final('never')]);
			const result = await run(
				httpTool(settings as IDataObject | undefined),
				headerCredential(overrides),
			);
			expect(result.errorOf('Agent Core')?.message).toContain(message);
			expect(server().requests).toHaveLength(0);
			expect(canary.connections).toBe(0);
		},
	);

	it('refuses a URL in allowed_domains of Tool Settings (JSON) as it refuses one in the credential', async () => {
		const canary = await startCanary();
		server().setScript([action('http_request', { url: canary.url }), final('never')]);
		const result = await run(
			httpTool({
				http_request: {
					allow_private_network: true,
					allowed_domains: ['https://api.example.test/v1'],
				},
			}),
			{},
		);
		expect(result.errorOf('Agent Core')?.message).toContain(
			'tool_settings.http_request.allowed_domains[0]: "https://api.example.test/v1" is not a host name: it has a scheme and a path; write the host name only, e.g. api.example.test',
		);
		expect(server().requests).toHaveLength(0);
		expect(canary.connections).toBe(0);
	});

	it('posts to the Feishu bot of the credential, signed, and keeps its address out of the output', async () => {
		feishu.secret = SECRET;
		feishu.bodies = [];
		server().setScript([action('feishu_bot', { text: 'Deploy finished' }), final('sent')]);
		const result = await run(
			{ allowedTools: ['feishu_bot'], toolSettingsJson: '{}' },
			{ agentCoreFeishuBotApi: { webhookUrlWithToken: feishu.url, signingSecret: SECRET } },
		);
		expect(result.errorOf('Agent Core')).toBeUndefined();
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.finish_reason).toBe('final');
		expect(feishu.bodies).toHaveLength(1);
		expect(feishu.bodies[0]).toMatchObject({
			msg_type: 'text',
			content: { text: 'Deploy finished' },
			sign: expect.any(String),
		});
		const token = new URL(feishu.url).pathname.split('/').pop() as string;
		expect(JSON.stringify(json)).not.toContain(token);
		expect(JSON.stringify(json)).not.toContain(SECRET);
	});

	it('refuses a Feishu bot named both in the credential and in Tool Settings (JSON)', async () => {
		feishu.bodies = [];
		server().setScript([action('feishu_bot', { text: 'x' }), final('never')]);
		const result = await run(
			{
				allowedTools: ['feishu_bot'],
				toolSettingsJson: JSON.stringify({ feishu_bot: { webhook_url: feishu.url } }),
			},
			{ agentCoreFeishuBotApi: { webhookUrlWithToken: feishu.url, signingSecret: '' } },
		);
		expect(result.errorOf('Agent Core')?.message).toContain(
			"feishu_bot has a bot in both the 'Agent Core: Feishu / Lark Bot API' credential and Tool Settings (JSON)",
		);
		expect(feishu.bodies).toHaveLength(0);
	});

	describe('the credentials’ Test buttons check the values and send nothing', () => {
		const test = (check: typeof testHttpHeaderCredential, data: IDataObject) =>
			check.call(
				{} as ICredentialTestFunctions,
				{ id: '1', name: 'c', type: 't', data } as ICredentialsDecrypted,
			);

		it('passes a well-formed header credential, naming where the header goes', async () => {
			await expect(
				test(testHttpHeaderCredential, headerCredential().agentCoreHttpHeaderApi),
			).resolves.toEqual({
				status: 'OK',
				message:
					'X-Api-Key will go to 127.0.0.1, api.example.test only (checked here; nothing was sent)',
			});
		});

		it.each([
			[
				{ headerName: 'Bad:Name' },
				'is not a valid HTTP header name: "Bad:Name". Use a name like Authorization',
			],
			[
				{ headerSecret: '' },
				"header value in the 'Agent Core: HTTP Request Tool API' credential is empty",
			],
			[
				{ allowedDomains: 'api.example.test/path' },
				'"api.example.test/path" is not a host name: it has a path. Write the host name only, e.g. api.example.test.',
			],
		])('fails a header credential with %j', async (overrides, message) => {
			const result = await test(testHttpHeaderCredential, {
				...headerCredential().agentCoreHttpHeaderApi,
				...overrides,
			});
			expect(result.status).toBe('Error');
			expect(result.message).toContain(message);
		});

		it('passes a Feishu webhook URL and fails anything else', async () => {
			feishu.bodies = [];
			await expect(
				test(testFeishuCredential, { webhookUrlWithToken: feishu.url, signingSecret: SECRET }),
			).resolves.toEqual({
				status: 'OK',
				message: 'The webhook URL is well-formed and messages will be signed (nothing was posted)',
			});
			const bad = await test(testFeishuCredential, {
				webhookUrlWithToken: 'open.feishu.cn/open-apis/bot/v2/hook/x',
			});
			expect(bad).toMatchObject({
				status: 'Error',
				message: expect.stringContaining('is not an http(s) URL. Copy it again'),
			});
			expect(feishu.bodies).toHaveLength(0);
		});
	});
});
