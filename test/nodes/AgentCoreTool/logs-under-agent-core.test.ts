// The Agent Core Tool's calls under Agent Core as n8n's Logs view reads them (issue #52): a run of the node per call,
// the sub-agent's model runs pointing at it, in n8n's engine.
import type { IDataObject, ITaskData } from 'n8n-workflow';
import { action, final } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import {
	CHILD,
	agentCoreParent,
	childNode,
	loggingChatModelNode,
	nodeTypes,
	subAgentWorkflow,
	useParentAndChildServers,
} from './sub-agent-workflow';

/** A logged run of a node: its source, what went in and what came out on the AI connection. */
const logged = (run: ITaskData, type = 'ai_tool') => ({
	status: run.executionStatus,
	source: run.source,
	in: run.inputOverride?.[type]?.[0]?.[0]?.json,
	out: run.data?.[type]?.[0]?.[0]?.json,
});

describe('Agent Core Tool calls in the Logs view under Agent Core', () => {
	const servers = useParentAndChildServers();

	async function run(child = childNode(), parameters: IDataObject = {}, extra = {}) {
		const calls: unknown[] = [];
		const result = await runWorkflow({
			...subAgentWorkflow(
				agentCoreParent(
					{ prompt: '={{ $json.prompt }}', ...parameters },
					parameters.needsApproval ? { agentCoreRunStateApi: { id: '4', name: 'Run State' } } : {},
				),
				child,
			),
			nodeTypes: nodeTypes(servers.child, calls, {
				chatModel: loggingChatModelNode(servers.child),
				...extra,
			}),
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: servers.parent.openaiBaseUrl },
				...(parameters.needsApproval
					? { agentCoreRunStateApi: { signingSecret: 'sub-agent-logs-secret-0123456789abcdef' } }
					: {}),
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result.run.data.resultData.runData;
	}

	it("logs each call as a run of the node, the task in and the answer out, the sub-agent's model runs under it", async () => {
		servers.parent.setScript([
			action(CHILD, { task: 'multiply 6 by 7' }),
			action(CHILD, { task: 'multiply 2 by 3' }),
			final('42, then 6.'),
		]);
		servers.child.setScript([
			action('multiply', { a: 6, b: 7 }),
			final('6 times 7 is 42'),
			action('multiply', { a: 2, b: 3 }),
			final('2 times 3 is 6'),
		]);
		const runData = await run();
		const parentRun = [{ previousNode: 'Agent Core', previousNodeRun: 0 }];
		expect(runData[CHILD].map((call) => logged(call))).toEqual([
			{
				status: 'success',
				source: parentRun,
				in: { task: 'multiply 6 by 7' },
				out: { response: '6 times 7 is 42' },
			},
			{
				status: 'success',
				source: parentRun,
				in: { task: 'multiply 2 by 3' },
				out: { response: '2 times 3 is 6' },
			},
		]);
		// n8n names a sub-node run's source by the run of the context that read the sub-node (the Agent Core Tool's
		// supplyData, once for the parent's run), not by the call: the second call's model runs point at run 0 as well.
		expect(runData['Child Model'].map((call) => logged(call, 'ai_languageModel'))).toEqual(
			['6 times 7 is 42', '2 times 3 is 6'].flatMap((answer) => [
				expect.objectContaining({
					status: 'success',
					source: [{ previousNode: CHILD, previousNodeRun: 0 }],
				}),
				expect.objectContaining({ out: { response: expect.stringContaining(answer) } }),
			]),
		);
	});

	it('ends the run of a call that waits for a person with what the parent reads: that it waits', async () => {
		servers.parent.setScript([action(CHILD, { task: 'multiply 6 by 7' })]);
		servers.child.setScript([action('multiply', { a: 6, b: 7 })]);
		const runData = await run(childNode({ options: { approvalTools: 'multiply' } }), {
			governance: true,
			needsApproval: true,
		});
		expect(runData[CHILD].map((call) => logged(call))).toEqual([
			expect.objectContaining({
				status: 'success',
				in: { task: 'multiply 6 by 7' },
				out: { response: `${CHILD} waits for a person's approval` },
			}),
		]);
	});

	it("ends the run of a call that did not answer with the parent's error", async () => {
		servers.parent.setScript([action(CHILD, { task: 'multiply twice' }), final('It could not.')]);
		servers.child.setScript([
			action('multiply', { a: 6, b: 7 }),
			action('multiply', { a: 2, b: 3 }),
		]);
		const runData = await run(childNode({ options: { maxToolCalls: 1 } }));
		const [call] = runData[CHILD];
		expect(logged(call)).toMatchObject({ status: 'error', in: { task: 'multiply twice' } });
		expect(call.error?.message).toMatch(
			new RegExp(`^${CHILD} did not answer \\(finish_reason max_tool_calls\\)`),
		);
	});
});
