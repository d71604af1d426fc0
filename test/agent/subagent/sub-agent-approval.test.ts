// Approvals carried up (issue #52): a call inside a sub-agent that needs a person pauses the parent, which names the
// path; the parent's resume carries the decision down, the sub-agent goes on where it was, then the parent.
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { AgentConfig } from '../../../src/settings/config';
import { MemoryUsedStates } from '../../../src/run-state/used-states';
import { action, final, modelFor, useScriptedServer } from '../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';
import { rejectionOf } from '../../support/rejection';

useLoopbackGuard();

const SECRET = 'sub-agent-approval-secret-0123456789';

describe('a call inside a sub-agent that needs approval (runAgent, resumeAgent)', () => {
	const server = useScriptedServer();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((request, response) =>
			sendJson(response, { charged: JSON.parse(request.body || '{}').amount }),
		);
	});

	const config = (): Partial<AgentConfig> & { model: string } => ({
		model: 'gpt-4o-mini',
		allowed_tools: ['billing'],
		agents: {
			billing: {
				description: 'Charges customers',
				config: {
					allowed_tools: ['http_request'],
					approval_required: ['http_request'],
					tool_settings: { http_request: PRIVATE_ALLOWED },
				},
			},
		},
	});
	const options = () => ({
		model: modelFor(server()),
		config: config(),
		stateSecret: SECRET,
	});
	const charge = (amount: number) =>
		action('http_request', { url: `${payments.url}/charge`, method: 'POST', body: { amount } });

	async function pausedRun() {
		server().setScript([action('billing', { task: 'charge 42' }), charge(42)]);
		return runAgent({ ...options(), prompt: 'Charge the customer 42.' });
	}

	it('pauses the parent naming the path and the exact call; approve runs it once, the sub-agent then the parent answer', async () => {
		const paused = await pausedRun();
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(paused.stop_detail).toBe("billing › http_request waits for a person's approval");
		expect(paused.pending_action).toMatchObject({
			tool: 'billing › http_request',
			args: { url: `${payments.url}/charge`, method: 'POST', body: { amount: 42 } },
		});
		expect(payments.requests).toHaveLength(0);
		const before = paused.usage.total_tokens;

		server().setScript([final('charged 42'), final('The customer was charged 42.')]);
		const done = await resumeAgent({
			...options(),
			runState: paused.run_state,
			decision: { approve: true },
		});
		expect(done.finish_reason).toBe('final');
		expect(done.final_answer).toBe('The customer was charged 42.');
		expect(payments.requests.map((request) => JSON.parse(request.body))).toEqual([{ amount: 42 }]);
		const sub = done.trace[0].sub_run!;
		expect(sub).toMatchObject({ agent: 'billing', finish_reason: 'final' });
		// Tokens counted once: the paused part when it paused, the rest after.
		const ownAfter = done.trace.reduce((sum, step) => sum + (step.usage?.total_tokens ?? 0), 0);
		expect(done.usage.total_tokens).toBe(ownAfter + sub.usage.total_tokens);
		expect(done.usage.total_tokens).toBeGreaterThan(before);
	});

	it('deny reaches the sub-agent, whose model is told why; edit runs the inside call with the new arguments', async () => {
		const denied = await pausedRun();
		server().setScript([final('not charged'), final('Nothing was charged.')]);
		const afterDeny = await resumeAgent({
			...options(),
			runState: denied.run_state,
			decision: { deny: 'wrong customer' },
		});
		expect(afterDeny.final_answer).toBe('Nothing was charged.');
		expect(payments.requests).toHaveLength(0);
		// The sub-agent's model (the call before the parent's last) read the person's reason.
		expect(JSON.stringify(server().requests.at(-2)!.messages)).toContain('wrong customer');

		const edited = await pausedRun();
		server().setScript([final('charged 7'), final('Charged 7.')]);
		const edit = { url: `${payments.url}/charge`, method: 'POST', body: { amount: 7 } };
		const afterEdit = await resumeAgent({
			...options(),
			runState: edited.run_state,
			decision: { edit },
		});
		expect(afterEdit.finish_reason).toBe('final');
		expect(payments.requests.map((request) => JSON.parse(request.body))).toEqual([{ amount: 7 }]);
	});

	it('a tampered state and a second resume are refused; nothing inside the sub-agent runs', async () => {
		const paused = await pausedRun();
		const tampered = JSON.parse(JSON.stringify(paused.run_state));
		tampered.payload.pending.args.body.amount = 4200;
		expect(
			(
				await rejectionOf(
					resumeAgent({ ...options(), runState: tampered, decision: { approve: true } }),
				)
			).field,
		).toBe('run_state');
		const used = new MemoryUsedStates();
		server().setScript([final('charged'), final('done'), final('again'), final('again')]);
		await resumeAgent({
			...options(),
			runState: paused.run_state,
			decision: { approve: true },
			usedStates: used,
		});
		const again = await rejectionOf(
			resumeAgent({
				...options(),
				runState: paused.run_state,
				decision: { approve: true },
				usedStates: used,
			}),
		);
		expect(again.message).toMatch(/already used/);
		expect(payments.requests).toHaveLength(1);
	});

	it('a sub-agent that may ask for approval needs the signing key before anything runs', async () => {
		const refused = await rejectionOf(
			runAgent({ model: modelFor(server()), config: config(), prompt: 'go' }),
		);
		expect(refused.field).toBe('agents.billing.config.approval_required');
		expect(server().requests).toHaveLength(0);
	});
});
