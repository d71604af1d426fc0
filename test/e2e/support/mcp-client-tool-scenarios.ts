// Issue #32 in real n8n: n8n's own MCP Client Tool sub-node on Agent Core's Tool input, against server-everything.
import { randomBytes } from 'node:crypto';
import { readObservation } from '../../../src/agent/protocol/prompt';
import type { ScriptedReply, ScriptedRequest } from '../../../src/demo/scripted-server';
import { LINES } from '../../../scripts/n8n-cache';
import type { WorkflowJson } from '../../../scripts/n8n-local';
import { startEverything, type RunningMcpServer } from '../../support/servers/mcp-servers';
import { promptOf } from './model-script';
import { useAgentCoreInN8n, type WebhookResponse } from './n8n-harness';

const WEBHOOK_PATH = 'agent-core-mcp-client-tool';
const WEBHOOK_ID = '5e0c2a71-9b3d-4f6e-8a12-c3d4e5f60732';

/**
 * A provider key of OpenAI's shape, new for every run: it is the Agent Core credential's API key (so the
 * redactor knows it by value) and it sits in server-everything's environment, which `get-env` returns whole.
 */
const PROVIDER_KEY = `sk-e2e-${randomBytes(24).toString('hex')}`;

/**
 * The MCP Client Tool's newest version on each line, the one the editor adds, read in the installed node
 * (McpClientTool.node.js): 1.2 on 1.123.81, the first whose Server Transport offers HTTP Streamable as its
 * default; 1.4 on 2.41.1.
 */
const MCP_CLIENT_TOOL_VERSION: Record<1 | 2, number> = { 1: 1.2, 2: 1.4 };
/** The sub-node's name: n8n 2.x offers its tools as `<node name>_<tool>` (buildMcpToolName), 1.x under the tool's own name. */
const MCP_NODE_NAME = 'Everything';

/** The name the model sees for one of server-everything's tools on this line. */
export const offeredName = (line: 1 | 2, tool: string) =>
	line === 1 ? tool : `${MCP_NODE_NAME}_${tool}`;

/** What each scenario's prompt asks the scripted model to do (the scenario's prompt starts with it). */
const ASK = {
	listTools: '[mcp] say which tools you have',
	echo: '[mcp] echo',
	badArgs: '[mcp] echo with a number',
	structured: '[mcp] weather in Chicago',
	serverError: '[mcp] resource 1.5',
	environment: '[mcp] show the environment',
	gzip: '[mcp] gzip a file',
} as const;

const action = (tool: string, args: Record<string, unknown>) =>
	JSON.stringify({ type: 'action', tool, args });
/** The URL the model asks gzip-file-as-resource to fetch, on a loopback port nothing listens on. */
const GZIP_CANARY = 'http://127.0.0.1:9/never-fetched';
const final = (answer: string) => JSON.stringify({ type: 'final', answer });

/** The message the model was last sent: an observation, or an error with its repair turn. */
const lastMessageOf = (request: ScriptedRequest) =>
	request.messages[request.messages.length - 1]?.content ?? '';

/**
 * The scripted model of this suite: stateless, the reply chosen from the prompt and how many replies the
 * model already gave in this run; each final answer quotes what the model was last sent, so that the webhook's
 * answer shows it too. It calls the tools by the names this line offers them under. A request without
 * PROVIDER_KEY gets HTTP 401.
 */
function mcpModel(line: 1 | 2): (request: ScriptedRequest) => ScriptedReply {
	const call = (tool: string, args: Record<string, unknown>) => () =>
		action(offeredName(line, tool), args);
	const scripts: Array<[string, Array<(quoted: string) => string>]> = [
		[ASK.badArgs, [call('echo', { message: 42 }), call('echo', { message: 'forty-two' }), final]],
		[ASK.echo, [call('echo', { message: 'hello from n8n' }), final]],
		[ASK.structured, [call('get-structured-content', { location: 'Chicago' }), final]],
		[
			ASK.serverError,
			[
				call('get-resource-reference', { resourceType: 'Text', resourceId: 1.5 }),
				call('echo', { message: 'still running' }),
				final,
			],
		],
		[ASK.environment, [call('get-env', {}), final]],
		// Under the name the line would give it: it is not offered.
		[ASK.gzip, [call('gzip-file-as-resource', { name: 'page.gz', data: GZIP_CANARY }), final]],
	];
	return (request) => {
		if (request.headers.authorization !== `Bearer ${PROVIDER_KEY}`)
			return { status: 401, errorMessage: 'Incorrect API key provided.' };
		const prompt = promptOf(request);
		const step = request.messages.filter((message) => message.role === 'assistant').length;
		// startsWith order matters: ASK.badArgs starts with ASK.echo.
		const script = scripts.find(([ask]) => prompt.startsWith(ask))?.[1] ?? [
			() => final('I have the tools of the MCP server.'),
		];
		return (script[step] ?? final)(`The model read: ${lastMessageOf(request)}`);
	};
}

/**
 * Webhook (prompt) → Agent Core (version 2, OpenAI on the scripted model) with n8n's MCP Client Tool on its Tool
 * input (HTTP Streamable, every tool of the server except `gzip-file-as-resource`) → Respond with the whole output
 * item; Agent Core's error output → Respond with Error (HTTP 400).
 */
function mcpClientToolWorkflow(line: 1 | 2, endpointUrl: string): WorkflowJson {
	const to = (target: string, type = 'main') => [{ node: target, type, index: 0 }];
	return {
		id: 'agentCoreMcpClientTool',
		name: 'Agent Core with the MCP Client Tool sub-node',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: {
					httpMethod: 'POST',
					path: WEBHOOK_PATH,
					responseMode: 'responseNode',
					options: {},
				},
			},
			{
				name: 'Agent Core',
				type: 'n8n-nodes-agent-core.agentCore',
				typeVersion: 2,
				position: [240, 0],
				onError: 'continueErrorOutput',
				credentials: { agentCoreOpenAiApi: { id: 'agentCoreOpenAi1', name: 'OpenAI' } },
				parameters: {
					provider: 'openai',
					model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
					inputMode: 'prompt',
					prompt: '={{ $json.body.prompt }}',
					options: {
						developerText: 'Use the MCP server’s tools when they help.',
						maxSteps: 6,
						maxToolCalls: 4,
						timeout: 60,
					},
				},
			},
			{
				name: MCP_NODE_NAME,
				type: '@n8n/n8n-nodes-langchain.mcpClientTool',
				typeVersion: MCP_CLIENT_TOOL_VERSION[line],
				position: [240, 240],
				parameters: {
					endpointUrl,
					serverTransport: 'httpStreamable',
					authentication: 'none',
					include: 'except',
					excludeTools: ['gzip-file-as-resource'],
					options: {},
				},
			},
			{
				name: 'Respond with Result',
				type: 'n8n-nodes-base.respondToWebhook',
				typeVersion: 1.1,
				position: [520, -100],
				parameters: {
					respondWith: 'json',
					responseBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			},
			{
				name: 'Respond with Error',
				type: 'n8n-nodes-base.respondToWebhook',
				typeVersion: 1.1,
				position: [520, 100],
				parameters: {
					respondWith: 'json',
					responseBody: '={{ JSON.stringify({ error: $json.error }) }}',
					options: { responseCode: 400 },
				},
			},
		],
		connections: {
			Webhook: { main: [to('Agent Core')] },
			'Agent Core': { main: [to('Respond with Result'), to('Respond with Error')] },
			[MCP_NODE_NAME]: { ai_tool: [to('Agent Core', 'ai_tool')] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * The scenarios: the MCP tools in the model's prompt, a call that breaks a tool's input schema refused before it is
 * sent, text and structured results as observations, a server error as a tool error the run goes on after, the
 * server's environment read with the provider key redacted, and `gzip-file-as-resource` never reaching the server.
 */
export function describeMcpClientToolInN8n(line: 1 | 2): void {
	describe(`n8n ${LINES[line].version}: n8n's MCP Client Tool sub-node on Agent Core's Tool input, against server-everything`, () => {
		const workflows: WorkflowJson[] = [];
		let everything: RunningMcpServer | undefined;
		// Before the harness's hooks, which read `workflows` when they import them: the workflow needs the server's URL.
		beforeAll(async () => {
			everything = await startEverything({ OPENAI_API_KEY: PROVIDER_KEY });
			workflows.push(mcpClientToolWorkflow(line, everything.url));
		}, 60_000);
		afterAll(async () => everything?.close());
		const get = useAgentCoreInN8n(line, mcpModel(line), {
			workflows,
			examples: false,
			modelApiKey: PROVIDER_KEY,
		});
		const server = () => everything!;

		/** Posts `ask` (made unique) and returns the answer, the run's model calls and its trace. */
		async function run(
			ask: string,
			status = 200,
		): Promise<{
			response: WebhookResponse;
			calls: ScriptedRequest[];
			trace: Array<Record<string, any>>;
		}> {
			const prompt = `${ask} (${get().uniqueId(`n8n-${line}`)})`;
			const response = await get().post(WEBHOOK_PATH, { prompt });
			get().expectStatus(response, status);
			const calls = get().model.requests.filter((request) => promptOf(request) === prompt);
			return { response, calls, trace: response.body?.trace ?? [] };
		}

		const name = (tool: string) => offeredName(line, tool);

		it('offers the server’s tools to the model under the names n8n gives them, with their input schemas, and leaves out the excluded one', async () => {
			const { response, calls } = await run(ASK.listTools);
			expect(response.body).toMatchObject({
				finish_reason: 'final',
				final_answer: 'I have the tools of the MCP server.',
			});
			const system = calls[0].messages[0].content;
			expect(system).toContain(`- ${name('echo')}: Echoes back the input string`);
			expect(system).toMatch(
				new RegExp(`- ${name('echo')}: [^\\n]*\\n {2}args: [^\\n]*"message":\\{"type":"string"`),
			);
			expect(system).toContain(`- ${name('get-structured-content')}: Returns structured content`);
			expect(system).toMatch(
				new RegExp(
					`- ${name('get-structured-content')}: [^\\n]*\\n {2}args: [^\\n]*"enum":\\["New York","Chicago","Los Angeles"\\]`,
				),
			);
			expect(system).toContain(`- ${name('get-env')}: Returns all environment variables`);
			expect(system).not.toContain('gzip-file-as-resource');
			expect(server().seen.some((request) => request.method === 'tools/list')).toBe(true);
		});

		it('returns a text result (echo) as the observation the model reads', async () => {
			const { response, calls, trace } = await run(ASK.echo);
			expect(response.body.finish_reason).toBe('final');
			expect(trace[0]).toMatchObject({
				action: { tool: name('echo'), args: { message: 'hello from n8n' } },
				observation: 'Echo: hello from n8n',
			});
			expect(readObservation(lastMessageOf(calls[1]))).toEqual({
				tool: name('echo'),
				text: 'Echo: hello from n8n',
			});
			expect(response.body.final_answer).toContain('Echo: hello from n8n');
			expect(response.body.used_tools).toMatchObject({ [name('echo')]: { count: 1 } });
		});

		it('refuses args that break the tool’s input schema before anything is sent, and the model reads why', async () => {
			const before = server().calls('echo').length;
			const { response, calls, trace } = await run(ASK.badArgs);
			expect(trace[0].error).toMatchObject({
				type: 'invalid_args',
				message: expect.stringContaining('args.message: must be string'),
			});
			expect(lastMessageOf(calls[1])).toContain('args.message: must be string');
			// Only the repaired call reached the server.
			expect(
				server()
					.calls('echo')
					.slice(before)
					.map((request) => request.arguments),
			).toEqual([{ message: 'forty-two' }]);
			expect(trace[1]).toMatchObject({ observation: 'Echo: forty-two' });
			expect(response.body.finish_reason).toBe('final');
		});

		it('returns a structured-content result as the observation the model reads', async () => {
			const { response, calls, trace } = await run(ASK.structured);
			const weather = '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}';
			// n8n 1.x hands over the result's content (server-everything puts the same JSON in a text item), 2.x its structured content.
			const expected = line === 1 ? weather : `structuredContent: ${weather}`;
			expect(readObservation(lastMessageOf(calls[1]))).toEqual({
				tool: name('get-structured-content'),
				text: expected,
			});
			expect(trace[0].observation).toBe(expected);
			expect(response.body.finish_reason).toBe('final');
		});

		it('turns the server’s error into a tool error the model reads, and the run goes on', async () => {
			const before = server().calls('get-resource-reference').length;
			const { response, calls, trace } = await run(ASK.serverError);
			expect(server().calls('get-resource-reference').slice(before)).toHaveLength(1);
			const message = `${name('get-resource-reference')} failed: the tool reported an error: Invalid resourceId: 1.5. Must be a finite positive integer.`;
			expect(trace[0].error).toEqual({ type: 'tool_error', message });
			expect(lastMessageOf(calls[1])).toContain(`Error: ${message}`);
			expect(trace[1]).toMatchObject({
				action: { tool: name('echo') },
				observation: 'Echo: still running',
			});
			expect(response.body.finish_reason).toBe('final');
		});

		it('never lets the provider key that get-env returns reach the model or the output', async () => {
			const before = server().calls('get-env').length;
			const { response, calls, trace } = await run(ASK.environment);
			expect(server().calls('get-env').slice(before)).toHaveLength(1);
			// The environment was read (the server's own PORT is there), with the key redacted.
			expect(trace[0].observation).toContain('"PORT":');
			expect(trace[0].observation).toContain('"OPENAI_API_KEY": "[REDACTED]"');
			expect(response.body.final_answer).toContain('"OPENAI_API_KEY": "[REDACTED]"');
			expect(calls.length).toBeGreaterThanOrEqual(2);
			for (const call of calls) expect(JSON.stringify(call.body)).not.toContain(PROVIDER_KEY);
			expect(response.text).not.toContain(PROVIDER_KEY);
			expect(response.text).not.toContain(PROVIDER_KEY.slice(0, 20));
		});

		it('never sends gzip-file-as-resource: it is not offered, and a call the model asks for anyway is refused', async () => {
			const { response, calls, trace } = await run(ASK.gzip);
			expect(trace[0].error).toMatchObject({
				type: 'tool_not_allowed',
				message: expect.stringContaining(
					`tool "${name('gzip-file-as-resource')}" is not available`,
				),
			});
			expect(lastMessageOf(calls[1])).toContain(
				`tool "${name('gzip-file-as-resource')}" is not available`,
			);
			expect(response.body.finish_reason).toBe('final');
			expect(server().calls('gzip-file-as-resource')).toEqual([]);
		});

		afterAll(() => {
			// Over the whole suite, whatever ran: the excluded tool never reached the server.
			expect(everything?.calls('gzip-file-as-resource') ?? []).toEqual([]);
		});
	});
}
