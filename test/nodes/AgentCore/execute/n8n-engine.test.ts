import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
import { runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	createSubWorkflowTriggerNode,
} from '../../../support/test-nodes';

function describeTestNode(
	name: string,
	extra: Partial<INodeTypeDescription> = {},
): INodeTypeDescription {
	return {
		displayName: name,
		name,
		group: ['transform'],
		version: 1,
		description: `Test node ${name}`,
		defaults: { name },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
		...extra,
	};
}

/** Adds `upper`: its `text` parameter (usually an expression) in capitals. */
class UpperCase implements INodeType {
	description = describeTestNode('upperCase', {
		properties: [{ displayName: 'Text', name: 'text', type: 'string', default: '' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, itemIndex) => ({
				json: {
					...item.json,
					upper: (this.getNodeParameter('text', itemIndex) as string).toUpperCase(),
				},
				pairedItem: { item: itemIndex },
			})),
		];
	}
}

/** Echoes the `apiKey` of its `testApi` credential. */
class CredentialEcho implements INodeType {
	description = describeTestNode('credentialEcho', {
		credentials: [{ name: 'testApi', required: true }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('testApi', 0);
		return [[{ json: { apiKey: credentials.apiKey }, pairedItem: { item: 0 } }]];
	}
}

/** Fails the items whose `json.fail` is true, the way n8n nodes do: per item, honouring continueOnFail. */
class FailWhenAsked implements INodeType {
	description = describeTestNode('failWhenAsked');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		for (const [itemIndex, item] of this.getInputData().entries()) {
			if (item.json.fail !== true) {
				output.push({ json: item.json, pairedItem: { item: itemIndex } });
				continue;
			}
			const error = new NodeOperationError(this.getNode(), `Item ${itemIndex} asked to fail`, {
				itemIndex,
			});
			if (!this.continueOnFail()) throw error;
			output.push({ json: { error: error.message }, pairedItem: { item: itemIndex } });
		}
		return [output];
	}
}

/** Throws for the whole run, ignoring continueOnFail, so only the engine can turn the error into items. */
class AlwaysThrow implements INodeType {
	description = describeTestNode('alwaysThrow');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		throw new NodeOperationError(this.getNode(), 'Nothing works here');
	}
}

/** Sends its input items to the sub-workflow named by `workflowId` and returns what comes back. */
class CallSubWorkflow implements INodeType {
	description = describeTestNode('callSubWorkflow', {
		properties: [
			{ displayName: 'Workflow ID', name: 'workflowId', type: 'string', default: '' },
			{
				displayName: 'Wait for Sub-workflow',
				name: 'waitForSubWorkflow',
				type: 'boolean',
				default: true,
			},
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const workflowId = this.getNodeParameter('workflowId', 0) as string;
		const doNotWaitToFinish = !(this.getNodeParameter('waitForSubWorkflow', 0) as boolean);
		const items = this.getInputData();
		const result = await this.executeWorkflow({ id: workflowId }, items, undefined, {
			doNotWaitToFinish,
		});
		// Without waiting there is nothing to return but the caller's own items, as n8n's Execute Workflow node does.
		const returned = result.data[0] ?? items;
		return [
			returned.map((item, itemIndex) => ({
				json: { ...item.json, executionId: result.executionId },
				pairedItem: { item: itemIndex },
			})),
		];
	}
}

/** An AI tool sub-node: supplies an `echo` tool to the node it is connected to. */
class EchoTool implements INodeType {
	description = describeTestNode('echoTool', {
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties: [{ displayName: 'Prefix', name: 'prefix', type: 'string', default: 'echo: ' }],
	});

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const prefix = this.getNodeParameter('prefix', itemIndex) as string;
		return { response: { name: 'echo', invoke: async (input: string) => `${prefix}${input}` } };
	}
}

/** Uses the tools connected to its AI tool input, as an agent node would. */
class ToolUser implements INodeType {
	description = describeTestNode('toolUser', {
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		for (const [itemIndex, item] of this.getInputData().entries()) {
			const tools = (await this.getInputConnectionData(
				NodeConnectionTypes.AiTool,
				itemIndex,
			)) as Array<{
				name: string;
				invoke(input: string): Promise<string>;
			}>;
			const answer = await tools[0].invoke(item.json.text as string);
			output.push({
				json: { tools: tools.map((tool) => tool.name), answer },
				pairedItem: { item: itemIndex },
			});
		}
		return [output];
	}
}

const nodeTypes = {
	upperCase: new UpperCase(),
	credentialEcho: new CredentialEcho(),
	failWhenAsked: new FailWhenAsked(),
	alwaysThrow: new AlwaysThrow(),
	callSubWorkflow: new CallSubWorkflow(),
	echoTool: new EchoTool(),
	toolUser: new ToolUser(),
};

const jsonOf = (items: INodeExecutionData[]): IDataObject[] => items.map((item) => item.json);

describe('n8n engine harness', () => {
	it('evaluates parameter expressions against each item with the real engine', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'hello' }, { text: 'world' }]),
				createNode({
					name: 'Upper',
					type: 'upperCase',
					parameters: { text: '={{ $json.text }} #{{ $itemIndex }}' },
				}),
			],
			connections: connectInSequence('Input', 'Upper'),
			nodeTypes,
		});

		expect(result.run.status).toBe('success');
		expect(jsonOf(result.outputOf('Upper'))).toEqual([
			{ text: 'hello', upper: 'HELLO #0' },
			{ text: 'world', upper: 'WORLD #1' },
		]);
	});

	it('keeps the pairedItem of every item so expressions can reach earlier nodes', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'a' }, { text: 'b' }, { text: 'c' }]),
				createNode({ name: 'First', type: 'upperCase', parameters: { text: '={{ $json.text }}' } }),
				createNode({
					name: 'Second',
					type: 'upperCase',
					parameters: { text: "={{ $('Input').item.json.text }}-again" },
				}),
			],
			connections: connectInSequence('Input', 'First', 'Second'),
			nodeTypes,
		});

		const output = result.outputOf('Second');
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output.map((item) => item.json.upper)).toEqual(['A-AGAIN', 'B-AGAIN', 'C-AGAIN']);
	});

	it('gives a node the credential data of the type it declares', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}]),
				createNode({
					name: 'Echo',
					type: 'credentialEcho',
					settings: { credentials: { testApi: { id: '1', name: 'Test API' } } },
				}),
			],
			connections: connectInSequence('Input', 'Echo'),
			nodeTypes,
			credentials: { testApi: { apiKey: 'secret-key-1' } },
		});

		expect(jsonOf(result.outputOf('Echo'))).toEqual([{ apiKey: 'secret-key-1' }]);
	});

	it('fails the node when the test provides no credential of that type', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}]),
				createNode({
					name: 'Echo',
					type: 'credentialEcho',
					settings: { credentials: { testApi: { id: '7', name: 'Missing' } } },
				}),
			],
			connections: connectInSequence('Input', 'Echo'),
			nodeTypes,
		});

		expect(result.run.status).toBe('error');
		expect(result.errorOf('Echo')?.message).toBe(
			'Credential with ID "7" does not exist for type "testApi".',
		);
	});

	it('stops the workflow and reports the error when a node fails without continueOnFail', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'ok' }, { text: 'bad', fail: true }]),
				createNode({ name: 'Fail', type: 'failWhenAsked' }),
				createNode({ name: 'After', type: 'upperCase', parameters: { text: 'x' } }),
			],
			connections: connectInSequence('Input', 'Fail', 'After'),
			nodeTypes,
		});

		expect(result.run.status).toBe('error');
		expect(result.errorOf('Fail')).toBeInstanceOf(Error);
		expect(result.errorOf('Fail')?.message).toBe('Item 1 asked to fail');
		expect(result.run.data.resultData.error?.message).toBe('Item 1 asked to fail');
		expect(result.run.data.resultData.lastNodeExecuted).toBe('Fail');
		expect(() => result.outputOf('After')).toThrow('Node "After" did not run');
	});

	it('turns a failed item into { json: { error } } with its pairedItem when continueOnFail is on', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'ok' }, { text: 'bad', fail: true }, { text: 'fine' }]),
				createNode({ name: 'Fail', type: 'failWhenAsked', settings: { continueOnFail: true } }),
			],
			connections: connectInSequence('Input', 'Fail'),
			nodeTypes,
		});

		expect(result.run.status).toBe('success');
		expect(result.errorOf('Fail')).toBeUndefined();
		expect(result.outputOf('Fail')).toEqual([
			{ json: { text: 'ok' }, pairedItem: { item: 0 } },
			{ json: { error: 'Item 1 asked to fail' }, pairedItem: { item: 1 } },
			{ json: { text: 'fine' }, pairedItem: { item: 2 } },
		]);
	});

	it("passes the input on and records the error when a node throws with onError 'continueRegularOutput'", async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'one' }, { text: 'two' }]),
				createNode({
					name: 'Throw',
					type: 'alwaysThrow',
					settings: { onError: 'continueRegularOutput' },
				}),
				createNode({ name: 'After', type: 'upperCase', parameters: { text: '={{ $json.text }}' } }),
			],
			connections: connectInSequence('Input', 'Throw', 'After'),
			nodeTypes,
		});

		expect(result.run.status).toBe('success');
		expect(result.errorOf('Throw')?.message).toBe('Nothing works here');
		expect(jsonOf(result.outputOf('Throw'))).toEqual([{ text: 'one' }, { text: 'two' }]);
		expect(jsonOf(result.outputOf('After'))).toEqual([
			{ text: 'one', upper: 'ONE' },
			{ text: 'two', upper: 'TWO' },
		]);
	});

	it('runs a sub-workflow through the same engine and returns its last node output to the caller', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'alpha' }, { text: 'beta' }]),
				createNode({ name: 'Call', type: 'callSubWorkflow', parameters: { workflowId: 'shout' } }),
			],
			connections: connectInSequence('Input', 'Call'),
			nodeTypes,
			workflows: {
				shout: {
					nodes: [
						createSubWorkflowTriggerNode(),
						createNode({
							name: 'Shout',
							type: 'upperCase',
							parameters: { text: '={{ $json.text }}!' },
						}),
					],
					connections: connectInSequence('When Called', 'Shout'),
				},
			},
		});

		expect(result.run.status).toBe('success');
		expect(result.executeWorkflowCalls).toEqual([
			{
				workflowId: 'shout',
				items: [
					expect.objectContaining({ json: { text: 'alpha' } }),
					expect.objectContaining({ json: { text: 'beta' } }),
				],
			},
		]);
		const output = result.outputOf('Call');
		expect(output.map((item) => item.json.upper)).toEqual(['ALPHA!', 'BETA!']);
		expect(output[0].json.executionId).toEqual(expect.any(String));
	});

	it('starts a sub-workflow without waiting when the caller sets doNotWaitToFinish', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'later' }]),
				createNode({
					name: 'Call',
					type: 'callSubWorkflow',
					parameters: { workflowId: 'shout', waitForSubWorkflow: false },
				}),
			],
			connections: connectInSequence('Input', 'Call'),
			nodeTypes,
			workflows: {
				shout: {
					nodes: [
						createSubWorkflowTriggerNode(),
						createNode({ name: 'Shout', type: 'upperCase', parameters: { text: 'x' } }),
					],
					connections: connectInSequence('When Called', 'Shout'),
				},
			},
		});

		expect(result.executeWorkflowCalls.map((call) => call.workflowId)).toEqual(['shout']);
		expect(jsonOf(result.outputOf('Call'))).toEqual([
			{ text: 'later', executionId: expect.any(String) },
		]);
	});

	it("throws the sub-workflow's error inside the calling node", async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'x', fail: true }]),
				createNode({ name: 'Call', type: 'callSubWorkflow', parameters: { workflowId: 'broken' } }),
			],
			connections: connectInSequence('Input', 'Call'),
			nodeTypes,
			workflows: {
				broken: {
					nodes: [
						createSubWorkflowTriggerNode(),
						createNode({ name: 'Fail', type: 'failWhenAsked' }),
					],
					connections: connectInSequence('When Called', 'Fail'),
				},
			},
		});

		expect(result.run.status).toBe('error');
		expect(result.errorOf('Call')?.message).toBe('Item 0 asked to fail');
	});

	it('supplies the tools of AI tool sub-nodes through getInputConnectionData', async () => {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ text: 'ping' }]),
				createNode({ name: 'Agent', type: 'toolUser' }),
				createNode({ name: 'Echo Tool', type: 'echoTool', parameters: { prefix: 'echo: ' } }),
			],
			connections: {
				...connectInSequence('Input', 'Agent'),
				'Echo Tool': { ai_tool: [[{ node: 'Agent', type: NodeConnectionTypes.AiTool, index: 0 }]] },
			},
			nodeTypes,
		});

		expect(result.run.status).toBe('success');
		expect(jsonOf(result.outputOf('Agent'))).toEqual([{ tools: ['echo'], answer: 'echo: ping' }]);
	});

	it('leaves the caller’s node objects untouched so one definition serves many runs', async () => {
		const nodes = [
			createInputNode([{ text: 'q' }]),
			createNode({ name: 'Upper', type: 'upperCase', parameters: { text: '={{ $json.text }}' } }),
		];
		const before = structuredClone(nodes);
		await runWorkflow({ nodes, connections: connectInSequence('Input', 'Upper'), nodeTypes });
		const again = await runWorkflow({
			nodes,
			connections: connectInSequence('Input', 'Upper'),
			nodeTypes,
		});

		expect(nodes).toEqual(before);
		expect(jsonOf(again.outputOf('Upper'))).toEqual([{ text: 'q', upper: 'Q' }]);
	});
});
