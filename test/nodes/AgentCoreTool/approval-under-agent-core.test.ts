// A call inside an Agent Core Tool that needs a person, under Agent Core with Require Approval (issue #52): the parent
// pauses on Needs Approval naming the path, and Run or Resume carries the decision (approve, deny, edit) down to the
// sub-agent, in n8n's engine.
import type { IDataObject } from 'n8n-workflow';
import { action, final, lastUserMessage } from '../../support/agent';
import { runWorkflow } from '../../support/n8n-engine';
import {
	CHILD,
	childNode,
	nodeTypes,
	subAgentWorkflow,
	agentCoreParent,
	useParentAndChildServers,
} from './sub-agent-workflow';

describe('Agent Core Tool approvals under Agent Core', () => {
	const servers = useParentAndChildServers();

	async function run(calls: unknown[], parameters: IDataObject, items?: IDataObject[]) {
		const parent = agentCoreParent(
			{ prompt: '={{ $json.prompt }}', governance: true, needsApproval: true, ...parameters },
			{ agentCoreRunStateApi: { id: '4', name: 'Run State' } },
		);
		const workflow = subAgentWorkflow(
			parent,
			childNode({ options: { approvalTools: 'multiply' } }),
		);
		if (items) workflow.nodes[0].parameters = { itemsJson: JSON.stringify(items) };
		return await runWorkflow({
			...workflow,
			nodeTypes: nodeTypes(servers.child, calls),
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: servers.parent.openaiBaseUrl },
				agentCoreRunStateApi: { signingSecret: 'sub-agent-approval-secret-0123456789' },
			},
		});
	}

	it("pauses the parent on Needs Approval naming the sub-agent's call; Resume with Approve runs it once and both answer", async () => {
		const calls: unknown[] = [];
		servers.parent.setScript([action(CHILD, { task: 'multiply 6 by 7' })]);
		servers.child.setScript([action('multiply', { a: 6, b: 7 })]);
		const paused = await run(calls, {});
		expect(paused.errorOf('Agent Core')).toBeUndefined();
		const [waiting] = paused.outputOf('Agent Core', 1);
		expect(waiting.json).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: { tool: `${CHILD} › multiply`, args: { a: 6, b: 7 } },
		});
		expect(calls).toEqual([]);

		servers.parent.setScript([final('It is 42.')]);
		servers.child.setScript([final('6 times 7 is 42')]);
		const resumed = await run(calls, { runOrResume: 'resume', decision: 'approve' }, [
			waiting.json,
		]);
		expect(resumed.errorOf('Agent Core')).toBeUndefined();
		const json = resumed.outputOf('Agent Core', 0)[0].json as Record<string, any>;
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It is 42.' });
		expect(calls).toEqual([{ a: 6, b: 7 }]);
		expect(lastUserMessage(servers.parent, servers.parent.requests.length - 1)).toContain(
			'6 times 7 is 42',
		);
		expect(json.trace[0].sub_run).toMatchObject({ agent: CHILD, finish_reason: 'final' });
	});

	/** The parent paused at the sub-agent's multiply(6, 7): its Needs Approval item. */
	async function pausedAtMultiply(calls: unknown[]) {
		servers.parent.setScript([action(CHILD, { task: 'multiply 6 by 7' })]);
		servers.child.setScript([action('multiply', { a: 6, b: 7 })]);
		return (await run(calls, {})).outputOf('Agent Core', 1)[0].json;
	}

	it('Resume with Deny reaches the sub-agent: the call never runs, its model reads the reason, then the parent answers', async () => {
		const calls: unknown[] = [];
		const waiting = await pausedAtMultiply(calls);
		servers.parent.setScript([final('It was not worked out.')]);
		servers.child.setScript([final('I may not multiply')]);
		const resumed = await run(
			calls,
			{ runOrResume: 'resume', decision: 'deny', denyReason: 'use the table instead' },
			[waiting],
		);
		expect(resumed.errorOf('Agent Core')).toBeUndefined();
		const json = resumed.outputOf('Agent Core', 0)[0].json as Record<string, any>;
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It was not worked out.' });
		expect(calls).toEqual([]);
		expect(lastUserMessage(servers.child, servers.child.requests.length - 1)).toContain(
			'Their reason: use the table instead.',
		);
		expect(lastUserMessage(servers.parent, servers.parent.requests.length - 1)).toContain(
			'I may not multiply',
		);
		expect(json.trace[0].sub_run).toMatchObject({ agent: CHILD, finish_reason: 'final' });
	});

	it('Resume with Edit runs the call inside the sub-agent with the Edited Arguments, once, then both answer', async () => {
		const calls: unknown[] = [];
		const waiting = await pausedAtMultiply(calls);
		servers.parent.setScript([final('It is 12.')]);
		servers.child.setScript([final('2 times 6 is 12')]);
		const resumed = await run(
			calls,
			{ runOrResume: 'resume', decision: 'edit', editedArgs: '{ "a": 2, "b": 6 }' },
			[waiting],
		);
		expect(resumed.errorOf('Agent Core')).toBeUndefined();
		const json = resumed.outputOf('Agent Core', 0)[0].json as Record<string, any>;
		expect(json).toMatchObject({ finish_reason: 'final', final_answer: 'It is 12.' });
		expect(calls).toEqual([{ a: 2, b: 6 }]);
		// The sub-agent's model read the edited call's result.
		expect(lastUserMessage(servers.child, servers.child.requests.length - 1)).toContain('12');
	});
});
