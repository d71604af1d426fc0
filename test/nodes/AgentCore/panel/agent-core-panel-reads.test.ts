// Each node version reads an item's panel once, straight into the run: no second read of item 0, no version 1 shape between (issue #39).
import type { IDataObject, IExecuteFunctions, INodeParameters, INodeType } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { action, useScriptedServer } from '../../../support/agent';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

/** The collections whose reads are counted: n8n copies and resolves a whole collection on every read of it. */
const COLLECTIONS = new Set(['options', 'limits', 'budgets']);

/** Agent Core with each version's execute given a context that records every read of a whole collection, by item. */
function countingAgentCore(reads: Array<[string, number]>): AgentCore {
	const node = new AgentCore();
	for (const version of Object.values(node.nodeVersions) as INodeType[]) {
		const execute = version.execute!;
		version.execute = async function (this: IExecuteFunctions) {
			const counted = new Proxy(this, {
				get(target, key) {
					if (key === 'getNodeParameter') {
						return (name: string, itemIndex: number, ...rest: unknown[]) => {
							if (COLLECTIONS.has(name)) reads.push([name, itemIndex]);
							return (target.getNodeParameter as (...args: unknown[]) => unknown)(
								name,
								itemIndex,
								...rest,
							);
						};
					}
					const value = Reflect.get(target, key) as unknown;
					return typeof value === 'function' ? value.bind(target) : value;
				},
			});
			return await execute.call(counted);
		} as INodeType['execute'];
	}
	return node;
}

describe("Agent Core's panel, read per item", () => {
	const server = useScriptedServer();

	async function run(typeVersion: number, parameters: IDataObject) {
		// The model calls a tool every turn, each time differently: the run ends at the step limit the panel set.
		let calls = 0;
		server().setScript(() =>
			action('json_transform', { data: { n: calls }, expression: `n${'[0]'.repeat(calls++ % 5)}` }),
		);
		const reads: Array<[string, number]> = [];
		const result = await runWorkflow({
			nodes: [
				createInputNode([{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }]),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'm' },
						allowedTools: ['json_transform'],
						...parameters,
					} as INodeParameters,
					settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: countingAgentCore(reads) },
			credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl } },
		});
		const perItem = (name: string) =>
			[0, 1, 2].map(
				(itemIndex) => reads.filter(([read, index]) => read === name && index === itemIndex).length,
			);
		return { items: result.outputOf('Agent Core'), perItem };
	}

	it('version 2 reads Options and Budgets once for each item, item 0 included, and its values reach the run', async () => {
		const { items, perItem } = await run(2, {
			governance: true,
			budgets: { totalTokenBudget: 1_000_000 },
			options: { maxSteps: 2, batching: { batchSize: 2 } },
		});
		expect(perItem('options')).toEqual([1, 1, 1]);
		expect(perItem('budgets')).toEqual([1, 1, 1]);
		expect(perItem('limits')).toEqual([0, 0, 0]);
		// Options → Max Iterations stopped each run at its second step.
		expect(
			items.map((item) => [item.json.finish_reason, (item.json.trace as unknown[]).length]),
		).toEqual([
			['max_steps', 2],
			['max_steps', 2],
			['max_steps', 2],
		]);
	});

	it('version 2 with Governance off: its hidden switches and budgets, still saved in the workflow, count for nothing and Budgets is not read', async () => {
		// Each would end the run at once or fail the item if it counted: a 1-token budget, approval and an audit
		// trail without their credentials, durable runs without Redis. (n8n's engine also resets parameters their
		// display conditions hide; the reader's own Governance check is what holds where a caller does not.)
		const { items, perItem } = await run(2, {
			governance: false,
			needsApproval: true,
			approvalTools: ['json_transform'],
			auditTrail: true,
			durableRuns: true,
			budgets: { totalTokenBudget: 1, sharedBudgetTokens: 1, sharedBudgetScope: 'x' },
			limits: { maxSteps: 1 },
			options: { maxSteps: 2 },
		});
		expect(perItem('budgets')).toEqual([0, 0, 0]);
		expect(perItem('limits')).toEqual([0, 0, 0]);
		expect(
			items.map((item) => [item.json.finish_reason, (item.json.trace as unknown[]).length]),
		).toEqual([
			['max_steps', 2],
			['max_steps', 2],
			['max_steps', 2],
		]);
	});

	it('version 1 reads Options and Limits once for each item, item 0 included', async () => {
		const { items, perItem } = await run(1, { limits: { maxSteps: 1 }, options: { batchSize: 2 } });
		expect(perItem('options')).toEqual([1, 1, 1]);
		expect(perItem('limits')).toEqual([1, 1, 1]);
		expect(items.map((item) => item.json.finish_reason)).toEqual([
			'max_steps',
			'max_steps',
			'max_steps',
		]);
	});
});
