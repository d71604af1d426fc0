// Issue #42 in n8n's engine: Agent Core version 2 pauses a batch before the call that needs approval, and
// Resume → Decide Each Call (Batch) decides its calls by number.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { final, lastUserMessage, useScriptedServer } from '../../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../../support/servers/http-servers';
import { runWorkflow } from '../../../support/n8n-engine';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

useLoopbackGuard();

describe('a batch that needs approval in Agent Core version 2 (n8n engine)', () => {
	const server = useScriptedServer();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((_, response) => sendJson(response, { charged: true }));
	});

	const run = (items: IDataObject[], parameters: INodeParameters = {}) =>
		runWorkflow({
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
						approvalTools: ['http_request'],
						options: { toolSettingsJson: JSON.stringify({ http_request: PRIVATE_ALLOWED }) },
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
				agentCoreRunStateApi: { signingSecret: 'batch-node-approval-secret-0123456789' },
			},
		});

	it('pauses at the POST with the batch listed on Needs Approval; Decide Each Call denies it and the run goes on', async () => {
		const charge = { url: `${payments.url}/charge`, method: 'POST' };
		const total = { data: { a: [4, 5] }, expression: 'sum(a)' };
		server().setScript([
			JSON.stringify({
				type: 'actions',
				calls: [
					{ tool: 'json_transform', args: total },
					{ tool: 'http_request', args: charge },
				],
			}),
		]);
		const first = await run([{ prompt: 'Total it, then charge.' }]);
		const [waiting] = first.outputOf('Agent Core', 1);
		expect(waiting.json).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: {
				tool: 'http_request',
				call: 2,
				batch: [
					{ call: 1, tool: 'json_transform', status: 'ran' },
					{ call: 2, tool: 'http_request', status: 'needs_approval' },
				],
			},
		});
		expect(payments.requests).toHaveLength(0);

		server().setScript([final('Totalled 9, not charged.')]);
		const resumed = await run([waiting.json], {
			runOrResume: 'resume',
			decision: 'calls',
			callDecisions: '{ "2": { "deny": "charge tomorrow" } }',
		});
		expect(resumed.errorOf('Agent Core')).toBeUndefined();
		expect(resumed.outputOf('Agent Core', 0)[0].json).toMatchObject({ finish_reason: 'final' });
		const message = lastUserMessage(server(), server().requests.length - 1);
		expect(message).toContain('call 1 (json_transform):\n9');
		expect(message).toContain('Their reason: charge tomorrow');
		expect(payments.requests).toHaveLength(0);
	});
});
