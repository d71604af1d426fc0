// Issue #51 through the node: Require Approval of the Plan pauses on Needs Approval with pending_plan and the plan as a
// numbered list in `output`; Run or Resume → Resume approves (exactly that plan runs), denies (plan_rejected) or edits it.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from '../../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../../support/servers/http-servers';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';
import { plan, planSteps, transform } from './plan-steps';

useLoopbackGuard();

describe('Require Approval of the Plan in Agent Core version 2 (n8n engine)', () => {
	const server = useScriptedServer();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((request, response) => sendJson(response, { paid: request.body }));
	});
	const charge = () => ({
		url: `${payments.url}/charge`,
		method: 'POST',
		body: { total: { $step: 1, pointer: '' } },
	});
	const chargePlan = () =>
		plan([
			['json_transform', transform({ a: [4, 5] }, 'sum(a)')],
			['http_request', charge()],
		]);

	const run = (items: IDataObject[], parameters: INodeParameters = {}, streaming = false) =>
		runWorkflow({
			streaming,
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'm' },
						allowedTools: ['json_transform', 'http_request'],
						governance: true,
						needsApproval: true,
						options: {
							mode: 'plan',
							approvePlan: true,
							toolSettingsJson: JSON.stringify({ http_request: PRIVATE_ALLOWED }),
						},
						...parameters,
					},
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							agentCoreRunStateApi: { id: '4', name: 'Run State' },
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				agentCoreRunStateApi: { signingSecret: 'plan-node-approval-secret-0123456789' },
			},
		});
	async function paused() {
		server().setScript([chargePlan()]);
		const [waiting] = (await run([{ prompt: 'Total it, then charge.' }])).outputOf('Agent Core', 1);
		return waiting.json as Record<string, any>;
	}
	const resume = async (waiting: IDataObject, parameters: INodeParameters) => {
		const result = await run([waiting], { runOrResume: 'resume', ...parameters });
		expect(result.errorOf('Agent Core')).toBeUndefined();
		return result.outputOf('Agent Core', 0)[0].json as Record<string, any>;
	};
	const paid = () => payments.requests.map((request) => JSON.parse(request.body));

	it('pauses on Needs Approval before any step runs: pending_plan, run_state, and the plan as a numbered list in output', async () => {
		const waiting = await paused();
		expect(waiting).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_plan: {
				steps: [
					{ step: 1, tool: 'json_transform' },
					{ step: 2, tool: 'http_request' },
				],
			},
			run_state: expect.any(Object),
		});
		expect(waiting.pending_action).toBeUndefined();
		expect(waiting.output).toBe(
			'No answer: the plan of 2 steps waits for approval:\n' +
				'1. step 1 uses json_transform (json_transform)\n2. step 2 uses http_request (http_request)',
		);
		expect(payments.requests).toHaveLength(0);
	});

	it('Approve runs exactly that plan, the charge once, and answers; the node names no approver', async () => {
		const waiting = await paused();
		server().setScript([final('Charged 9.')]);
		const done = await resume(waiting, { decision: 'approve' });
		expect(done).toMatchObject({ finish_reason: 'final', output: 'Charged 9.' });
		expect(paid()).toEqual([{ total: 9 }]);
		expect(done.plan.steps.map(({ status }: any) => status)).toEqual(['done', 'done']);
		expect(done.plan.approval).toEqual({ at: expect.any(String) });
	});

	it('Deny with a reason ends the run plan_rejected: nothing runs, no model call, the reason in stop_detail', async () => {
		const waiting = await paused();
		server().setScript([final('never')]);
		const done = await resume(waiting, { decision: 'deny', denyReason: 'not today' });
		expect(done).toMatchObject({
			finish_reason: 'plan_rejected',
			stop_detail: 'a person rejected the plan: not today',
			output: 'No answer: the plan was rejected (a person rejected the plan: not today).',
		});
		expect(payments.requests).toHaveLength(0);
		expect(server().requests).toHaveLength(1);
	});

	it('Edit runs the person\'s {"steps": […]}; left as it is, Edited Arguments is the plan shown', async () => {
		const waiting = await paused();
		const lookOnly = planSteps([['json_transform', transform({ a: [1, 2] }, 'sum(a)')]]);
		server().setScript([final('Only totalled.')]);
		const edited = await resume(waiting, {
			decision: 'edit',
			editedArgs: JSON.stringify({ steps: lookOnly }),
		});
		expect(edited).toMatchObject({ finish_reason: 'final', plan: { approval: { edited: true } } });
		expect(edited.plan.steps.map(({ tool }: any) => tool)).toEqual(['json_transform']);
		expect(payments.requests).toHaveLength(0);

		const again = await paused();
		server().setScript([final('Charged 9.')]);
		const unchanged = await resume(again, { decision: 'edit' });
		expect(unchanged.finish_reason).toBe('final');
		expect(paid()).toEqual([{ total: 9 }]);
	});

	it('streamed, the plan is listed as it arrives and the stream ends saying it waits', async () => {
		server().setScript([chargePlan()]);
		const result = await run([{ prompt: 'Total it, then charge.' }], {}, true);
		const text = result.chunks.map((chunk) => chunk.content ?? '').join('');
		expect(text).toBe(
			'\n[plan]\n1. step 1 uses json_transform (json_transform)\n2. step 2 uses http_request (http_request)\n\n' +
				'No answer: the plan above waits for approval.',
		);
	});

	it('Require Approval of the Plan without Require Approval is an error naming both, before any model call', async () => {
		server().setScript([chargePlan()]);
		const result = await run([{ prompt: 'Total it, then charge.' }], { needsApproval: false });
		expect(result.errorOf('Agent Core')?.message).toBe(
			'Require Approval of the Plan needs Governance → Require Approval on',
		);
		expect(server().requests).toHaveLength(0);
	});
});
