import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { testRunStateCredential } from '../../../../nodes/AgentCore/execute/governance/approval';
import { signRunState, type SignedRunState } from '../../../../src/run-state/signed-state';
import { action, final, lastUserMessage, useScriptedServer } from '../../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../../support/servers/http-servers';
import { runWorkflow } from '../../../support/n8n-engine';
import { deleteKeysByPrefix, redisCredentialData, useTestRedis } from '../../../support/redis';
import { connectInSequence, createInputNode, createNode } from '../../../support/test-nodes';

useLoopbackGuard();

/** Issue #18 in n8n's engine: Require Approval's second output, and Operation → Resume a Paused Run. */
describe('Agent Core approval in n8n’s engine', () => {
	const server = useScriptedServer();
	const redis = useTestRedis();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((_, response) => sendJson(response, { charged: true }));
	});
	afterEach(() => deleteKeysByPrefix(redis.admin, 'agent_core:run_state:'));

	const SIGNING_SECRET = 'node-approval-secret-0123456789';
	const settings: INodeParameters = {
		model: { __rl: true, mode: 'id', value: 'm' },
		allowedTools: ['http_request'],
		needsApproval: true,
		approvalTools: ['http_request'],
		toolSettingsJson: JSON.stringify({ http_request: PRIVATE_ALLOWED }),
	};

	const run = (items: IDataObject[], parameters: INodeParameters, withRedis = false) => {
		return runWorkflow({
			nodes: [
				createInputNode(items),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					parameters: { ...settings, ...parameters },
					settings: {
						credentials: {
							agentCoreOpenAiApi: { id: '1', name: 'OpenAI' },
							agentCoreRunStateApi: { id: '4', name: 'Run State' },
							...(withRedis ? { agentCoreRedisApi: { id: '3', name: 'Redis' } } : {}),
						},
					},
				}),
			],
			connections: connectInSequence('Input', 'Agent Core'),
			nodeTypes: { agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl },
				agentCoreRunStateApi: { signingSecret: SIGNING_SECRET },
				agentCoreRedisApi: redisCredentialData(redis.url),
			},
		});
	};

	async function paused(): Promise<IDataObject> {
		server().setScript([action('http_request', { url: `${payments.url}/charge`, method: 'POST' })]);
		const result = await run([{ prompt: 'Charge the customer.' }], {});
		expect(result.outputOf('Agent Core', 0)).toHaveLength(0);
		const [waiting] = result.outputOf('Agent Core', 1);
		expect(waiting.json).toMatchObject({
			finish_reason: 'awaiting_approval',
			pending_action: { tool: 'http_request', args: { method: 'POST' } },
		});
		expect(waiting.pairedItem).toEqual({ item: 0 });
		expect(payments.requests).toHaveLength(0);
		return waiting.json;
	}

	it('sends a paused run to Needs Approval; Resume with Approve runs the call once and answers on the first output', async () => {
		const waiting = await paused();
		server().setScript([final('Charged.')]);
		const result = await run([waiting], { operation: 'resume', decision: 'approve' });
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(result.outputOf('Agent Core', 0)[0].json).toMatchObject({
			finish_reason: 'final',
			final_answer: 'Charged.',
		});
		expect(result.outputOf('Agent Core', 1)).toHaveLength(0);
		expect(payments.requests).toHaveLength(1);
	});

	it('Resume with Deny tells the model the reason and never reaches the target', async () => {
		const waiting = await paused();
		server().setScript([final('Not charged.')]);
		const result = await run([waiting], {
			operation: 'resume',
			decision: 'deny',
			denyReason: 'paid already',
		});
		expect(result.outputOf('Agent Core', 0)[0].json.finish_reason).toBe('final');
		expect(lastUserMessage(server(), server().requests.length - 1)).toContain(
			'Their reason: paid already.',
		);
		expect(payments.requests).toHaveLength(0);
	});

	it('refuses a second resume of the same state when the node has the Redis credential', async () => {
		const waiting = await paused();
		server().setScript([final('Charged.'), final('Charged twice?')]);
		await run([waiting], { operation: 'resume', decision: 'approve' }, true);
		const again = await run([waiting], { operation: 'resume', decision: 'approve' }, true);
		expect(again.errorOf('Agent Core')?.message).toBe(
			'run_state was already used to resume this run; a paused run resumes once',
		);
		expect(payments.requests).toHaveLength(1);
	});

	it('refuses an altered run state, naming it', async () => {
		const waiting = await paused();
		const altered = JSON.parse(JSON.stringify(waiting));
		altered.run_state.payload.pending.args.url = 'http://127.0.0.1:9/elsewhere';
		const result = await run([altered], { operation: 'resume', decision: 'approve' });
		expect(result.errorOf('Agent Core')?.message).toMatch(
			/^run_state was altered, or signed with another key/,
		);
		expect(payments.requests).toHaveLength(0);
	});

	it('Resume with Approve sends the secret-bearing call exactly; the items of both runs show it redacted', async () => {
		const secrets = { apiKey: 'live-key-7Qm2Zp9Xc4Lk', token: 'tok_3f9a8b7c6d5e4f' };
		server().setScript([
			action('http_request', {
				url: `${payments.url}/charge?api_key=${secrets.apiKey}`,
				method: 'POST',
				body: { token: secrets.token },
			}),
		]);
		const pausedRun = await run([{ prompt: 'Charge the customer.' }], {});
		const [waiting] = pausedRun.outputOf('Agent Core', 1);
		expect(waiting.json.pending_action).toEqual({
			tool: 'http_request',
			args: {
				url: `${payments.url}/charge?api_key=[REDACTED]`,
				method: 'POST',
				body: { token: '[REDACTED]' },
			},
		});
		server().setScript([final('Charged.')]);
		const resumed = await run([waiting.json], { operation: 'resume', decision: 'approve' });
		expect(resumed.outputOf('Agent Core', 0)[0].json.finish_reason).toBe('final');
		expect(payments.requests.map((request) => [request.url, request.body])).toEqual([
			[`/charge?api_key=${secrets.apiKey}`, JSON.stringify({ token: secrets.token })],
		]);
		const items = JSON.stringify([
			pausedRun.outputOf('Agent Core', 1),
			resumed.outputOf('Agent Core', 0),
		]);
		for (const secret of Object.values(secrets)) expect(items).not.toContain(secret);
	});

	it('Run State Max Age (Days) refuses an older state on resume; the default week accepts it', async () => {
		const waiting = await paused();
		// The state as if the run had paused two days ago (re-signed with the credential's key, as only the node could).
		const { id, config_hash, created_at, ...rest } = (
			waiting.run_state as unknown as SignedRunState<object>
		).payload;
		const twoDaysAgo = new Date(Date.parse(created_at) - 2 * 86_400_000);
		const older = {
			...waiting,
			run_state: signRunState(rest, SIGNING_SECRET, config_hash, {
				id,
				now: twoDaysAgo,
			}) as unknown as IDataObject,
		};
		const refused = await run([older], {
			operation: 'resume',
			decision: 'approve',
			runStateMaxAgeDays: 1,
		});
		expect(refused.errorOf('Agent Core')?.message).toBe(
			`run_state is older than run_state_max_age_days (1 days): it was made at ${twoDaysAgo.toISOString()}; run the task again to pause it anew, or raise run_state_max_age_days (at most 30)`,
		);
		expect(payments.requests).toHaveLength(0);
		server().setScript([final('Charged.')]);
		const accepted = await run([older], { operation: 'resume', decision: 'approve' });
		expect(accepted.outputOf('Agent Core', 0)[0].json.finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(1);
	});

	it('the Run State credential test refuses a key of 16 spaces or one too short, and passes one from openssl rand -hex 32', async () => {
		const test = (signingSecret: string) =>
			testRunStateCredential.call({} as never, {
				id: '4',
				name: 'Run State',
				type: 'agentCoreRunStateApi',
				data: { signingSecret },
			});
		expect(await test(' '.repeat(16))).toEqual({
			status: 'Error',
			message: expect.stringContaining(
				'(this one has 16 characters, 1 of them different): generate one with `openssl rand -hex 32`',
			),
		});
		expect(await test('short-key')).toMatchObject({ status: 'Error' });
		expect(await test('3f1c9a7e0b5d2c8f6a4e1b9d7c3a5f0e2b8d6c4a1f9e7b3d5c0a2e8f6b4d1c9a')).toEqual({
			status: 'OK',
			message: 'The signing secret is strong enough to sign run states',
		});
	});
});
