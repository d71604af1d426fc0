// n8n's MCP Client Tool sub-node on Agent Core's Tool input (issue #32), in n8n's engine, against server-everything.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
	BaseToolkit,
	DynamicStructuredTool,
	type StructuredToolInterface,
} from '@langchain/core/tools';
import {
	NodeConnectionTypes,
	type INodeType,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, final, useScriptedServer } from '../../../support/agent';
import { startEverything, type RunningMcpServer } from '../../../support/servers/mcp-servers';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** n8n 1.x's toolkit class (McpClientTool/utils.js), by its name. */
class McpToolkit extends BaseToolkit {
	constructor(public tools: StructuredToolInterface[]) {
		super();
	}
}

/** n8n 2.x's generic toolkit (n8n-core ai-tool-types.js), which the MCP Client Tool hands over there. */
class StructuredToolkit extends BaseToolkit {
	constructor(public tools: StructuredToolInterface[]) {
		super();
	}
}

/** n8n's logWrapper around a tool: `_call` answers a string, the JSON of anything else (n8n 1.123.81 and 2.41.1 alike). */
function logWrapped(tool: DynamicStructuredTool): DynamicStructuredTool {
	return new Proxy(tool, {
		get(target, property) {
			if (property !== '_call') return target[property as keyof DynamicStructuredTool];
			return async (query: unknown) => {
				const response = await (
					target as unknown as { _call(query: unknown): Promise<unknown> }
				)._call(query);
				return typeof response === 'string' ? response : JSON.stringify(response);
			};
		},
	});
}

const clients: Client[] = [];

/**
 * The MCP Client Tool as n8n 1.123.81 (`line` 1) and 2.41.1 (`line` 2) build it, read in their installed
 * McpClientTool.node.js, utils.js and shared/runtime.js: a real SDK client over streamable HTTP, one LangChain
 * tool per listed tool whose call answers the result's content (2.x: its structured content when there is
 * some) and, for an `isError` result or a thrown error, the error's text, never an exception; 2.x names its
 * tools `<node name>_<tool>` and its engine marks each with `metadata.sourceNodeName`.
 */
function mcpClientToolNode(line: 1 | 2, url: () => string): INodeType {
	return {
		description: {
			displayName: 'MCP Client Tool',
			name: 'mcpClientTool',
			group: ['output'],
			version: 1,
			description: 'test stand-in for n8n’s MCP Client Tool',
			defaults: { name: 'MCP Client' },
			inputs: [],
			outputs: [NodeConnectionTypes.AiTool],
			properties: [],
		},
		async supplyData(this: ISupplyDataFunctions): Promise<SupplyData> {
			const client = new Client({ name: 'mcpClientTool', version: '1' });
			clients.push(client);
			await client.connect(new StreamableHTTPClientTransport(new URL(url())));
			const nodeName = this.getNode().name;
			const { tools } = await client.listTools();
			const callTool = (name: string) => async (args: Record<string, unknown>) => {
				let result;
				try {
					result = await client.callTool({ name, arguments: args });
				} catch (error) {
					return (error as Error).message;
				}
				if (result.isError)
					return (
						(result.content as Array<{ text?: string }>).find(
							(item) => typeof item.text === 'string',
						)?.text ?? `Failed to execute tool "${name}"`
					);
				const structured = result.structuredContent;
				if (
					line === 2 &&
					typeof structured === 'object' &&
					structured !== null &&
					!Array.isArray(structured)
				)
					return structured;
				return result.content ?? result;
			};
			const langChainTools = tools.map((tool) =>
				logWrapped(
					new DynamicStructuredTool({
						name: line === 1 ? tool.name : `${nodeName.replace(/[^a-zA-Z0-9]/g, '_')}_${tool.name}`,
						description: tool.description ?? '',
						schema: tool.inputSchema as never,
						func: callTool(tool.name) as never,
						metadata: { isFromToolkit: true, ...(line === 2 ? { sourceNodeName: nodeName } : {}) },
					}),
				),
			);
			return {
				response:
					line === 1 ? new McpToolkit(langChainTools) : new StructuredToolkit(langChainTools),
				closeFunction: () => client.close(),
			};
		},
	};
}

/** A toolkit that is not an MCP Client Tool's: its plain string results stay observations. */
const otherToolkitNode: INodeType = {
	description: {
		...mcpClientToolNode(1, () => '').description,
		name: 'otherToolkit',
		displayName: 'Other Toolkit',
	},
	async supplyData(): Promise<SupplyData> {
		const shout = new DynamicStructuredTool({
			name: 'shout',
			description: 'Shouts.',
			schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
			func: async ({ text }: { text: string }) => `${text.toUpperCase()}!`,
		});
		return {
			response: new StructuredToolkit([logWrapped(shout as unknown as DynamicStructuredTool)]),
		};
	},
};

describe('n8n’s MCP Client Tool sub-node on Agent Core’s Tool input, in n8n’s engine', () => {
	const scripted = useScriptedServer();
	let everything: RunningMcpServer;
	beforeAll(async () => {
		everything = await startEverything();
	}, 30_000);
	afterAll(async () => {
		await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
		await everything.close();
	});

	function run(line: 1 | 2, subNodeType = '@n8n/n8n-nodes-langchain.mcpClientTool') {
		return runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'Use the server.' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
						options: {},
					},
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
				createNode({ name: 'Everything', type: subNodeType }),
			],
			connections: {
				...connectInSequence('Input', 'Agent Core'),
				Everything: {
					ai_tool: [[{ node: 'Agent Core', type: NodeConnectionTypes.AiTool, index: 0 }]],
				},
			},
			nodeTypes: {
				agentCore: new AgentCore(),
				[subNodeType]: subNodeType.endsWith('.mcpClientTool')
					? mcpClientToolNode(line, () => everything.url)
					: otherToolkitNode,
			},
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: scripted().openaiBaseUrl } },
		});
	}

	it.each([1, 2] as const)(
		'n8n %i.x: text results are observations, and an error the node answers as text is a tool error the run goes on after',
		async (line) => {
			const name = (tool: string) => (line === 1 ? tool : `Everything_${tool}`);
			scripted().setScript([
				action(name('get-resource-reference'), { resourceType: 'Text', resourceId: 1.5 }),
				action(name('echo'), { message: 'still here' }),
				final('done'),
			]);
			const json = (await run(line)).outputOf('Agent Core')[0].json;
			const trace = json.trace as Array<Record<string, any>>;
			expect(trace[0].error).toEqual({
				type: 'tool_error',
				message: `${name('get-resource-reference')} failed: the tool reported an error: Invalid resourceId: 1.5. Must be a finite positive integer.`,
			});
			expect(trace[1].observation).toBe('Echo: still here');
			expect(json.finish_reason).toBe('final');
			expect(everything.calls('get-resource-reference').length).toBeGreaterThan(0);
		},
	);

	it('n8n 1.x: the content of a structured result is what the model reads', async () => {
		scripted().setScript([
			action('get-structured-content', { location: 'Chicago' }),
			final('rainy'),
		]);
		const trace = (await run(1)).outputOf('Agent Core')[0].json.trace as Array<Record<string, any>>;
		expect(trace[0].observation).toBe(
			'{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}',
		);
	});

	it('n8n 2.x: the structured content is read as the engine’s own MCP tools show it', async () => {
		scripted().setScript([
			action('Everything_get-structured-content', { location: 'Chicago' }),
			final('rainy'),
		]);
		const trace = (await run(2)).outputOf('Agent Core')[0].json.trace as Array<Record<string, any>>;
		expect(trace[0].observation).toBe(
			'structuredContent: {"temperature":36,"conditions":"Light rain / drizzle","humidity":82}',
		);
	});

	it('n8n 1.x: an image result is a note, never its bytes', async () => {
		scripted().setScript([action('get-tiny-image', {}), final('an image')]);
		const trace = (await run(1)).outputOf('Agent Core')[0].json.trace as Array<Record<string, any>>;
		expect(trace[0].observation).toMatch(/\[image image\/png, \d+ bytes, not shown\]/);
		expect(trace[0].observation).not.toMatch(/iVBOR/);
	});

	it('leaves a plain string from any other toolkit an observation', async () => {
		scripted().setScript([action('shout', { text: 'hi' }), final('shouted')]);
		const trace = (await run(2, 'otherToolkit')).outputOf('Agent Core')[0].json.trace as Array<
			Record<string, any>
		>;
		expect(trace[0].observation).toBe('HI!');
	});
});
