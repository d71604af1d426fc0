import { DynamicStructuredTool } from '@langchain/core/tools';
import { NodeConnectionTypes, type INodeParameters } from 'n8n-workflow';
import { z } from 'zod';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
	subNode,
} from '../../../support/test-nodes';
import { useEventLoopWatchdog } from '../../../support/watchdog';

/** Issue #26, typed answers: schemas from the panel (workflow tools, Output Schema) and from tool sub-nodes, in n8n's engine. */

const EVIL = '^(a+)+$';
/** 29 characters froze JavaScript's RegExp 13.5 s; these are far longer. */
const EVIL_TEXT = `${'a'.repeat(5_000)}!`;

describe('hostile schemas in the Agent Core node, inside n8n’s engine', () => {
	useEventLoopWatchdog('schemas');
	const server = useScriptedServer();
	const credentials = () => ({ agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } });
	const agent = (parameters: INodeParameters) =>
		createNode({
			name: 'Agent Core',
			type: 'agentCore',
			parameters: { model: { __rl: true, mode: 'id', value: 'm' }, ...parameters },
			settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
		});
	const withWorkflowTool = (argsSchema: unknown) =>
		runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'Look it up' }]),
				agent({
					workflowTools: {
						tools: [
							{
								name: 'lookup',
								description: 'Looks up.',
								workflowId: { __rl: true, mode: 'id', value: 'sub' },
								argsSchema: JSON.stringify(argsSchema),
							},
						],
					},
					limits: { timeout: 2 },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: credentials(),
			workflows: { sub: { nodes: [createSubWorkflowTriggerNode()], connections: {} } },
		});

	it('a workflow tool whose argument pattern backtracks exponentially refuses the calls promptly, the sub-workflow never started', async () => {
		server().setScript([
			action('lookup', { code: EVIL_TEXT }),
			action('lookup', { code: EVIL_TEXT }),
		]);
		const started = performance.now();
		const result = await withWorkflowTool({
			type: 'object',
			properties: { code: { type: 'string', pattern: EVIL } },
			required: ['code'],
		});
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.finish_reason).toBe('tool_error');
		expect((json.trace as Array<Record<string, any>>)[0].error).toMatchObject({
			type: 'invalid_args',
			message: expect.stringContaining(`args.code: must match pattern "${EVIL}"`),
		});
		expect(result.executeWorkflowCalls).toHaveLength(0);
		// A backtracking engine takes minutes on this pattern and text; the linear one, milliseconds (a loaded machine adds seconds, not minutes).
		expect(performance.now() - started).toBeLessThan(20_000);
	});

	it('a workflow tool schema with a $ref cycle is refused naming the panel row, before any model call', async () => {
		const result = await withWorkflowTool({
			type: 'object',
			properties: { query: { $ref: '#/properties/query' } },
		});
		const error = result.errorOf('Agent Core') as Error & { description?: string };
		expect(error.message).toMatch(
			/^Workflow Tools → tool 1 \(lookup\): Arguments Schema has \$ref "#\/properties\/query" at \/properties\/query\/\$ref that leads back/,
		);
		expect(error.description).toMatch(/^Recurse only through a part of the value/);
		expect(server().requests).toHaveLength(0);
	});

	it('a workflow tool schema with a lookahead is refused naming the row and the fix', async () => {
		const result = await withWorkflowTool({
			type: 'object',
			properties: { password: { type: 'string', pattern: '^(?=.*[0-9]).{8,}$' } },
		});
		const error = result.errorOf('Agent Core') as Error & { description?: string };
		expect(error.message).toMatch(
			/^Workflow Tools → tool 1 \(lookup\): Arguments Schema has pattern .* that uses a lookahead or lookbehind/,
		);
		expect(error.description).toContain('"allOf"');
		expect(server().requests).toHaveLength(0);
	});

	it('an Output Schema of {"$ref":"#"} is refused naming output_schema, before any model call', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'q' }]),
				agent({ options: { outputFormat: 'json', outputSchema: '{"$ref":"#"}' } }),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: credentials(),
		});
		expect(result.errorOf('Agent Core')?.message).toMatch(
			/^output_schema has \$ref "#" at \/\$ref that leads back/,
		);
		expect(server().requests).toHaveLength(0);
	});

	const subNodeTool = (schema: z.ZodType) => () =>
		new DynamicStructuredTool({
			name: 'code_check',
			description: 'Checks a code.',
			schema: schema as never,
			func: async () => 'checked',
		});
	const withSubNodeTool = (schema: z.ZodType) =>
		runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'check' }]),
				agent({ limits: { timeout: 2 } }),
				createNode({ name: 'Code Check', type: 'codeCheck' }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				'Code Check': {
					ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]],
				},
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				codeCheck: subNode('codeCheck', NodeConnectionTypes.AiTool, subNodeTool(schema)),
			},
			credentials: credentials(),
		});

	// One harmless sub-node run first: loading the sub-node path's modules (zod → JSON Schema, LangChain's tool
	// classes) is a one-time stall of its own, not the pattern's; the watchdog measures each test from its start.
	beforeAll(async () => {
		server().setScript([final('warm')]);
		await withSubNodeTool(z.object({ code: z.string() }));
	});

	it('a tool sub-node whose zod schema carries the catastrophic regex refuses the calls promptly', async () => {
		server().setScript([
			action('code_check', { code: EVIL_TEXT }),
			action('code_check', { code: EVIL_TEXT }),
		]);
		const started = performance.now();
		const result = await withSubNodeTool(z.object({ code: z.string().regex(/^(a+)+$/) }));
		const json = result.outputOf('Agent Core')[0].json;
		expect(json.finish_reason).toBe('tool_error');
		expect((json.trace as Array<Record<string, any>>)[0].error).toMatchObject({
			type: 'invalid_args',
		});
		// As above: minutes when backtracking, milliseconds when linear; load adds seconds.
		expect(performance.now() - started).toBeLessThan(20_000);
	});

	it('a tool sub-node whose zod schema has a back-reference is refused naming the tool, before any model call', async () => {
		const result = await withSubNodeTool(z.object({ code: z.string().regex(/^(\w)\1$/) }));
		expect(result.errorOf('Agent Core')?.message).toMatch(
			/^the args schema of tool "code_check" has pattern .* that uses a back-reference/,
		);
		expect(server().requests).toHaveLength(0);
	});

	it('a tool sub-node using zod’s own formats whose patterns use lookahead (hostname, duration) still works; zod checks them', async () => {
		server().setScript([
			action('code_check', { host: 'example.com', every: 'P1D' }),
			action('code_check', { host: '-bad-', every: 'P1D' }),
			JSON.stringify({ type: 'final', answer: 'done' }),
		]);
		const result = await withSubNodeTool(z.object({ host: z.hostname(), every: z.iso.duration() }));
		const json = result.outputOf('Agent Core')[0].json;
		const trace = json.trace as Array<Record<string, any>>;
		expect(json.finish_reason).toBe('final');
		expect(trace[0].observation).toBe('checked');
		expect(trace[1].error).toMatchObject({ type: 'tool_error' });
	});
});
