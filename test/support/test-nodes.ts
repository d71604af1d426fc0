import {
	NodeConnectionTypes,
	NodeOperationError,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type NodeConnectionType,
	type SupplyData,
} from 'n8n-workflow';

/** Type name of {@link TestInput}, the node that starts every workflow run by the harness. */
export const TEST_INPUT_NODE_TYPE = 'testInput';

/** Type name of {@link TestSubWorkflowTrigger}, the start node of sub-workflows. */
export const TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE = 'testSubWorkflowTrigger';

/**
 * Test-only start node: emits the items written as JSON in its `itemsJson` parameter
 * (an array of `json` objects, or one object). Stands in for a Manual Trigger plus pinned data.
 */
export class TestInput implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Input',
		name: TEST_INPUT_NODE_TYPE,
		group: ['trigger'],
		version: 1,
		description: 'Emits the items given as JSON',
		defaults: { name: 'Test Input' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items (JSON)', name: 'itemsJson', type: 'json', default: '[{}]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const itemsJson = this.getNodeParameter('itemsJson', 0) as string | IDataObject | IDataObject[];
		let parsed: unknown;
		try {
			parsed = typeof itemsJson === 'string' ? JSON.parse(itemsJson) : itemsJson;
		} catch (error) {
			throw new NodeOperationError(
				this.getNode(),
				`itemsJson is not valid JSON: ${(error as Error).message}`,
			);
		}
		const objects = Array.isArray(parsed) ? parsed : [parsed];
		return [objects.map((json) => ({ json: json as IDataObject }))];
	}
}

/**
 * Test-only sub-workflow start node: passes on the items the calling workflow sent,
 * as n8n-nodes-base's Execute Workflow Trigger does.
 */
export class TestSubWorkflowTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Sub-workflow Trigger',
		name: TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE,
		group: ['trigger'],
		version: 1,
		description: 'Starts a sub-workflow with the items of the calling node',
		defaults: { name: 'When Called' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** The harness's own node types, registered next to the ones a test passes in. */
export function harnessNodeTypes(): Record<string, INodeType> {
	return {
		[TEST_INPUT_NODE_TYPE]: new TestInput(),
		[TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE]: new TestSubWorkflowTrigger(),
	};
}

/** What {@link createNode} needs; everything else of an {@link INode} gets a neutral default. */
export interface CreateNodeOptions {
	name: string;
	type: string;
	parameters?: INodeParameters;
	typeVersion?: number;
	/** Extra INode fields: `credentials`, `continueOnFail`, `onError`, `disabled`... */
	settings?: Partial<INode>;
}

/** Builds an {@link INode} without the id/position boilerplate the engine does not care about. */
export function createNode(options: CreateNodeOptions): INode {
	return {
		id: options.name,
		name: options.name,
		type: options.type,
		typeVersion: options.typeVersion ?? 1,
		position: [0, 0],
		parameters: options.parameters ?? {},
		...options.settings,
	};
}

/** A {@link TestInput} node emitting `items` (each one an item's `json`). */
export function createInputNode(items: IDataObject[], name = 'Input'): INode {
	return createNode({
		name,
		type: TEST_INPUT_NODE_TYPE,
		parameters: { itemsJson: JSON.stringify(items) },
	});
}

/** A {@link TestSubWorkflowTrigger} node, the start of a sub-workflow. */
export function createSubWorkflowTriggerNode(name = 'When Called'): INode {
	return createNode({ name, type: TEST_SUB_WORKFLOW_TRIGGER_NODE_TYPE });
}

/** Main connections for a straight line of nodes: first → second → third... */
export function connectInSequence(...nodeNames: string[]): IConnections {
	const connections: IConnections = {};
	for (let index = 0; index < nodeNames.length - 1; index++) {
		connections[nodeNames[index]] = {
			main: [[{ node: nodeNames[index + 1], type: NodeConnectionTypes.Main, index: 0 }]],
		};
	}
	return connections;
}

/**
 * A sub-node as n8n's own are built: no inputs, one AI output (a tool, a chat model…), and supplyData
 * returning what `supply` builds (a LangChain tool or chat model) for the root node to use.
 */
export function subNode(
	typeName: string,
	output: NodeConnectionType,
	supply: () => unknown,
): INodeType {
	return {
		description: {
			displayName: typeName,
			name: typeName,
			group: ['transform'],
			version: 1,
			description: `test sub-node (${output})`,
			defaults: { name: typeName },
			inputs: [],
			outputs: [output],
			properties: [],
		},
		async supplyData(this: ISupplyDataFunctions): Promise<SupplyData> {
			return { response: supply() };
		},
	};
}
