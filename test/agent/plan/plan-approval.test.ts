// A plan that waits for a person (issue #51, approve_plan): approve runs exactly that plan, deny ends it, edit runs theirs.
import { resumeAgent } from '../../../src/agent/resume';
import { runAgent } from '../../../src/agent/run-agent';
import type { AgentConfig } from '../../../src/settings/config';
import type { Tool } from '../../../src/tools/tool';
import { MemoryUsedStates } from '../../../src/run-state/used-states';
import { final, modelFor, useScriptedServer } from '../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';
import { rejectionOf } from '../../support/rejection';

useLoopbackGuard();

const SECRET = 'plan-approval-secret-0123456789';

const plan = (steps: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'plan', steps: planSteps(steps) });
const planSteps = (steps: Array<[string, Record<string, unknown>]>) =>
	steps.map(([tool, args], index) => ({
		step: index + 1,
		description: `step ${index + 1} uses ${tool}`,
		tool,
		args,
	}));

const findOrder: Tool = {
	name: 'find_order',
	description: 'the last order of a customer',
	parameters: {
		type: 'object',
		properties: { customer: { type: 'string' } },
		required: ['customer'],
		additionalProperties: false,
	},
	sideEffects: false,
	async execute(args) {
		return { order: { id: `o-${(args as { customer: string }).customer}`, total: 42 } };
	},
};

describe('plan mode with approve_plan (runAgent, resumeAgent)', () => {
	const server = useScriptedServer();
	let payments: TestServer;
	beforeEach(async () => {
		payments = await startServer((request, response) =>
			sendJson(response, { refunded: JSON.parse(request.body || '{}').order }),
		);
	});

	const config = (): Partial<AgentConfig> & { model: string } => ({
		model: 'm',
		mode: 'plan',
		approve_plan: true,
		allowed_tools: ['find_order', 'http_request'],
		// A tool that asks for approval on its own: the plan's approval covers its step.
		approval_required: ['http_request'],
		tool_settings: { http_request: PRIVATE_ALLOWED },
		max_steps: 3,
	});
	const refundPlan = () =>
		plan([
			['find_order', { customer: 'ann' }],
			[
				'http_request',
				{
					url: `${payments.url}/refund`,
					method: 'POST',
					body: { order: { $step: 1, pointer: '/order/id' } },
				},
			],
		]);

	async function pausedRun() {
		server().setScript([refundPlan()]);
		return runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: [findOrder],
			prompt: 'refund ann',
			stateSecret: SECRET,
		});
	}
	const resume = (runState: unknown, decision: unknown, extra: Record<string, unknown> = {}) =>
		resumeAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: [findOrder],
			runState,
			decision: decision as never,
			stateSecret: SECRET,
			...extra,
		});

	it('pauses with pending_plan before any step runs; approve runs exactly that plan, the refund asked once', async () => {
		const paused = await pausedRun();
		expect(paused.finish_reason).toBe('awaiting_approval');
		expect(paused.stop_detail).toBe("the plan of 2 steps waits for a person's approval");
		expect((paused as any).pending_plan.steps).toEqual([
			expect.objectContaining({ step: 1, tool: 'find_order', args: { customer: 'ann' } }),
			expect.objectContaining({
				step: 2,
				tool: 'http_request',
				args: expect.objectContaining({ body: { order: { $step: 1, pointer: '/order/id' } } }),
			}),
		]);
		expect(payments.requests).toHaveLength(0);

		server().setScript([final('Refunded o-ann.')]);
		const done = await resume(paused.run_state, { approve: true, by: 'ann@shop' });
		expect(done.finish_reason).toBe('final');
		expect(payments.requests.map((request) => JSON.parse(request.body))).toEqual([
			{ order: 'o-ann' },
		]);
		expect(done.plan?.approval).toEqual({ at: expect.any(String), by: 'ann@shop' });
		expect(done.plan?.steps.map((step) => step.status)).toEqual(['done', 'done']);
		// Two model calls in all: the plan, and after the approval the answer.
		expect(server().requests).toHaveLength(2);
	});

	it('deny ends the run plan_rejected with the reason; nothing runs and the model is not called', async () => {
		const paused = await pausedRun();
		server().setScript([final('never')]);
		const done = await resume(paused.run_state, { deny: 'not this customer' });
		expect(done.finish_reason).toBe('plan_rejected');
		expect(done.stop_detail).toBe('a person rejected the plan: not this customer');
		expect(payments.requests).toHaveLength(0);
		expect(server().requests).toHaveLength(1); // the plan's; none after the denial
		expect(done.plan?.approval).toMatchObject({ denied: true });
	});

	it("edit runs the person's plan, checked as the model's; a bad edit names the field and leaves the state usable", async () => {
		const paused = await pausedRun();
		const used = new MemoryUsedStates();
		const bad = await rejectionOf(
			resume(
				paused.run_state,
				{ edit: { steps: planSteps([['find_order', { customer: 7 }]]) } },
				{ usedStates: used },
			),
		);
		expect(bad.field).toBe('decision.edit.steps');
		expect(bad.message).toContain('Step 1 (find_order): find_order args are invalid');
		server().setScript([final('Only looked.')]);
		const done = await resume(
			paused.run_state,
			{ edit: { steps: planSteps([['find_order', { customer: 'bob' }]]) } },
			{ usedStates: used },
		);
		expect(done.finish_reason).toBe('final');
		expect(payments.requests).toHaveLength(0);
		expect(done.plan?.steps.map((step) => step.args)).toEqual([{ customer: 'bob' }]);
		expect(done.plan?.approval).toMatchObject({ edited: true });
	});

	it('a tampered plan, a sealed plan moved into another state, a replayed state and a call decision are refused', async () => {
		const first = await pausedRun();
		const second = await pausedRun();
		const tampered = JSON.parse(JSON.stringify(first.run_state));
		tampered.payload.step = 9;
		expect((await rejectionOf(resume(tampered, { approve: true }))).field).toBe('run_state');
		// The sealed plan of one state inside another's signed payload: the signature covers it.
		const swapped = JSON.parse(JSON.stringify(first.run_state));
		swapped.payload.sealed = (second.run_state as any).payload.sealed;
		expect((await rejectionOf(resume(swapped, { approve: true }))).field).toBe('run_state');
		expect(
			(await rejectionOf(resume(first.run_state, { calls: { '1': { approve: true } } }))).field,
		).toBe('decision.calls');
		const used = new MemoryUsedStates();
		server().setScript([final('once'), final('twice')]);
		await resume(first.run_state, { approve: true }, { usedStates: used });
		expect(
			(await rejectionOf(resume(first.run_state, { approve: true }, { usedStates: used }))).message,
		).toMatch(/already used/);
		expect(payments.requests).toHaveLength(1);
	});

	it('a replan waits for approval again: the new plan pauses, and approving it runs it', async () => {
		server().setScript([
			plan([
				['find_order', { customer: 'ann' }],
				['find_order', { customer: { $step: 1, pointer: '/order/missing' } }],
			]),
		]);
		const options = {
			model: modelFor(server()),
			config: { ...config(), on_step_failure: 'replan' as const },
			extraTools: [findOrder],
			stateSecret: SECRET,
		};
		const first = await runAgent({ ...options, prompt: 'look twice' });
		expect(first.finish_reason).toBe('awaiting_approval');
		server().setScript([plan([['find_order', { customer: 'bob' }]])]);
		const replanned = await resumeAgent({
			...options,
			runState: first.run_state,
			decision: { approve: true },
		});
		expect(replanned.finish_reason).toBe('awaiting_approval');
		expect((replanned as any).pending_plan.steps).toEqual([
			expect.objectContaining({ tool: 'find_order', args: { customer: 'bob' } }),
		]);
		expect(replanned.plan?.replaced?.[0].steps.map((step) => step.status)).toEqual([
			'done',
			'failed',
		]);
		server().setScript([final('Looked.')]);
		const done = await resumeAgent({
			...options,
			runState: replanned.run_state,
			decision: { approve: true, by: 'second approver' },
		});
		expect(done.finish_reason).toBe('final');
		expect(done.plan?.approval?.by).toBe('second approver');
		expect(done.plan?.steps.map((step) => step.status)).toEqual(['done']);
	});

	it('approve_plan without a signing key is refused before anything runs, naming approve_plan', async () => {
		const { approval_required: _, ...withoutCallApproval } = config();
		const refused = await rejectionOf(
			runAgent({
				model: modelFor(server()),
				config: withoutCallApproval as AgentConfig,
				extraTools: [findOrder],
				prompt: 'go',
			}),
		);
		expect(refused.field).toBe('approve_plan');
		expect(server().requests).toHaveLength(0);
	});
});
