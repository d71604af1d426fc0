// Plan mode through the library (issue #51): a plan read, checked, run step by step through the one call path, then answered.
import { runAgent } from '../../../src/agent/run-agent';
import type { Tool } from '../../../src/tools/tool';
import type { AgentConfig } from '../../../src/settings/config';
import type { AgentEvent } from '../../../src/agent/base/events';
import { final, lastUserMessage, modelFor, useScriptedServer } from '../../support/agent';
import { readBatchObservations } from '../../../src/agent/protocol/prompt';

const plan = (...steps: Array<[string, Record<string, unknown>, string?]>) =>
	JSON.stringify({
		type: 'plan',
		steps: steps.map(([tool, args, description], index) => ({
			step: index + 1,
			description: description ?? `do ${tool}`,
			tool,
			args,
		})),
	});

const ref = (step: number, pointer: string) => ({ $step: step, pointer });

/** The three-step job of the issue: find the customer, their last order by the customer's id, refund it by the order's id. */
function shopTools(options: { refundFails?: boolean } = {}) {
	const arrived: Array<{ tool: string; args: unknown }> = [];
	const tool = (
		name: string,
		property: string,
		sideEffects: boolean,
		answer: (args: Record<string, string>) => unknown,
	): Tool => ({
		name,
		description: `${name} by ${property}`,
		parameters: {
			type: 'object',
			properties: { [property]: { type: 'string', minLength: 1 } },
			required: [property],
			additionalProperties: false,
		},
		sideEffects,
		async execute(args) {
			arrived.push({ tool: name, args });
			return answer(args as Record<string, string>);
		},
	});
	const tools = [
		tool('find_customer', 'email', false, ({ email }) => ({
			customer: { id: `cust-${email.length}`, email },
		})),
		tool('last_order', 'customer_id', false, ({ customer_id }) => ({
			orders: [{ id: `order-of-${customer_id}`, total: 42 }],
		})),
		tool('refund', 'order_id', true, ({ order_id }) => {
			if (options.refundFails) throw new Error(`payment provider said no for ${order_id}`);
			return { refunded: order_id };
		}),
	];
	return { tools, arrived };
}

const config = (extra: Partial<AgentConfig> = {}) => ({
	model: 'm',
	mode: 'plan' as const,
	allowed_tools: ['find_customer', 'last_order', 'refund'],
	max_steps: 4,
	...extra,
});

const THREE_STEPS = plan(
	['find_customer', { email: 'ann@example.com' }, 'Find the customer'],
	['last_order', { customer_id: ref(1, '/customer/id') }, 'Find their last order'],
	['refund', { order_id: ref(2, '/orders/0/id') }, 'Refund it'],
);

describe('plan mode: a plan whose steps read earlier steps runs with the resolved values (runAgent)', () => {
	const server = useScriptedServer();

	it('three dependent steps run in order with the values their references found, in two model calls', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([THREE_STEPS, final('Refunded order-of-cust-15.')]);
		const events: AgentEvent[] = [];
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: tools,
			prompt: 'refund the last order of ann@example.com',
			onEvent: (event) => events.push(event),
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('Refunded order-of-cust-15.');
		expect(arrived).toEqual([
			{ tool: 'find_customer', args: { email: 'ann@example.com' } },
			{ tool: 'last_order', args: { customer_id: 'cust-15' } },
			{ tool: 'refund', args: { order_id: 'order-of-cust-15' } },
		]);
		expect(server().requests).toHaveLength(2);
		expect(result.metrics.model_calls).toBe(2);
		// The listener hears the plan once it passed, then each step's call and observation.
		expect(
			events.filter((event) => event.type !== 'answer_delta').map((event) => event.type),
		).toEqual([
			'step_start',
			'plan',
			'step_start',
			'action',
			'observation',
			'step_start',
			'action',
			'observation',
			'step_start',
			'action',
			'observation',
			'step_start',
			'done',
		]);
		expect(events.find((event) => event.type === 'plan')).toEqual({
			type: 'plan',
			step: 1,
			steps: [
				{ step: 1, tool: 'find_customer', summary: 'Find the customer' },
				{ step: 2, tool: 'last_order', summary: 'Find their last order' },
				{ step: 3, tool: 'refund', summary: 'Refund it' },
			],
		});
		// The trace: the planning step, one step per group (two read-only steps read each other: no group), the answer.
		expect(result.trace.map((step) => step.plan_steps ?? null)).toEqual([
			null,
			[1],
			[2],
			[3],
			null,
		]);
		expect(result.trace[0].plan?.map((step) => step.tool)).toEqual([
			'find_customer',
			'last_order',
			'refund',
		]);
		expect(result.trace[3].action).toEqual({
			tool: 'refund',
			args: { order_id: 'order-of-cust-15' },
		});
		expect(result.plan?.steps.map((step) => step.status)).toEqual(['done', 'done', 'done']);
		expect(result.plan?.steps[1].args).toEqual({ customer_id: ref(1, '/customer/id') });
		// The model got every step's result in one message, call n being step n, and was asked for the answer.
		const told = lastUserMessage(server(), 1);
		expect(readBatchObservations(told)?.map(({ call, tool }) => [call, tool])).toEqual([
			[1, 'find_customer'],
			[2, 'last_order'],
			[3, 'refund'],
		]);
		expect(told).toContain('Reply with the final answer');
		// The prompt describes the plan form in plan mode only.
		expect(server().requests[0].messages[0].content).toContain('"type":"plan"');
		// The answer call's system message says only the answer's form: no tools, no plan form.
		const answerSystem = server().requests[1].messages[0].content;
		expect(answerSystem).toBe('Reply with one JSON object: {"type":"final","answer":"..."}.');
		// Remembered like any turn: the answer with each step's tool result, for a context store.
		const answer = result.messages.at(-1)!;
		expect(answer.tool_results?.map((one) => [one.step, one.tool])).toEqual([
			[2, 'find_customer'],
			[3, 'last_order'],
			[4, 'refund'],
		]);
	});

	it('consecutive read-only steps that do not read each other run as one group', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([
			plan(
				['find_customer', { email: 'a@x.io' }],
				['find_customer', { email: 'bb@x.io' }],
				['refund', { order_id: ref(2, '/customer/id') }],
			),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace.map((step) => step.plan_steps ?? null)).toEqual([null, [1, 2], [3], null]);
		expect(result.trace[1].calls?.map((call) => call.tool)).toEqual([
			'find_customer',
			'find_customer',
		]);
		expect(arrived.at(-1)).toEqual({ tool: 'refund', args: { order_id: 'cust-7' } });
	});

	it('a react-mode run reads a plan reply as a protocol error', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([THREE_STEPS, final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ mode: 'react' }),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.trace[0].error?.message).toContain('Unknown "type" "plan"');
		expect(arrived).toEqual([]);
		expect(server().requests[0].messages[0].content).not.toContain('"type":"plan"');
	});
});

describe('plan mode: a plan is checked whole before any of it runs, with one repair turn', () => {
	const server = useScriptedServer();

	const cases: Array<[string, string, string]> = [
		[
			'a reference to a later step',
			plan(['last_order', { customer_id: ref(2, '/id') }], ['find_customer', { email: 'a@b.c' }]),
			'Step 1: the reference at args.customer_id reads step 2, which runs after step 1',
		],
		[
			'an unknown tool',
			plan(['find_customer', { email: 'a@b.c' }], ['delete_everything', {}]),
			'Step 2 (delete_everything)',
		],
		[
			'invalid args',
			plan(['find_customer', { email: 'a@b.c' }], ['refund', { order: 'x' }]),
			'Step 2 (refund): refund args are invalid',
		],
		[
			'too many steps',
			plan(
				...Array.from(
					{ length: 4 },
					() => ['find_customer', { email: 'a@b.c' }] as [string, Record<string, unknown>],
				),
			),
			'Your plan held 4 steps; at most 3 (max_plan_steps)',
		],
		[
			'a call with side effects while planning',
			JSON.stringify({ type: 'action', tool: 'refund', args: { order_id: 'o-1' } }),
			'refund changes something, and nothing that does runs while you plan',
		],
	];

	it.each(cases)(
		'%s: a repair naming the step and the problem; nothing ran',
		async (_, reply, named) => {
			const { tools, arrived } = shopTools();
			server().setScript([reply, final('gave up')]);
			const result = await runAgent({
				model: modelFor(server()),
				config: config({ max_plan_steps: 3 }),
				extraTools: tools,
				prompt: 'go',
			});
			expect(result.trace[0].error?.type).toBe('parse_error');
			expect(result.trace[0].error?.message).toContain(named);
			expect(lastUserMessage(server(), 1)).toContain(named);
			expect(arrived).toEqual([]);
			expect(result.finish_reason).toBe('final');
		},
	);

	it('a read-only lookup while planning runs, then the plan', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([
			JSON.stringify({ type: 'action', tool: 'find_customer', args: { email: 'a@b.c' } }),
			plan(['refund', { order_id: 'order-1' }]),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(arrived.map(({ tool }) => tool)).toEqual(['find_customer', 'refund']);
		expect(server().requests).toHaveLength(3);
	});

	it('after the plan ran, only an answer is taken: another call is a repair', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([
			plan(['find_customer', { email: 'a@b.c' }]),
			JSON.stringify({ type: 'action', tool: 'refund', args: { order_id: 'o' } }),
			final('answered'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[2].error?.message).toContain('The plan has run');
		expect(arrived.map(({ tool }) => tool)).toEqual(['find_customer']);
	});
});

describe('plan mode: what a failed step does (on_step_failure)', () => {
	const server = useScriptedServer();

	it('stop (the default): the run ends plan_step_failed with what ran, no answer call', async () => {
		const { tools, arrived } = shopTools({ refundFails: true });
		server().setScript([THREE_STEPS, final('never asked')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config(),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('plan_step_failed');
		expect(result.stop_detail).toContain('step 3 of the plan (refund) failed');
		expect(result.stop_detail).toContain('payment provider said no');
		expect(result.plan?.steps.map((step) => step.status)).toEqual(['done', 'done', 'failed']);
		expect(server().requests).toHaveLength(1);
		expect(arrived).toHaveLength(3);
	});

	it('skip: the run goes on; a step that reads the failed step fails too and does not run', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([
			plan(
				['find_customer', { email: 'a@b.c' }],
				['last_order', { customer_id: ref(1, '/customer/nothing') }],
				['refund', { order_id: ref(2, '/orders/0/id') }],
				['find_customer', { email: 'later@b.c' }],
			),
			final('partly done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ on_step_failure: 'skip' }),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.plan?.steps.map((step) => step.status)).toEqual([
			'done',
			'failed',
			'failed',
			'done',
		]);
		expect(result.plan?.steps[1].error).toContain('has no key "nothing"');
		expect(result.plan?.steps[2].error).toContain('reads step 2, which failed');
		expect(arrived.map(({ tool }) => tool)).toEqual(['find_customer', 'find_customer']);
		const told = readBatchObservations(lastUserMessage(server(), 1));
		expect(told?.[1].text).toMatch(/^Error: /);
	});

	it('replan: the model sees what ran and sends a new plan for the rest, which runs', async () => {
		const { tools, arrived } = shopTools();
		server().setScript([
			plan(
				['find_customer', { email: 'a@b.c' }],
				['last_order', { customer_id: ref(1, '/customer/wrong') }],
			),
			plan(['last_order', { customer_id: 'cust-5' }]),
			final('replanned'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: config({ on_step_failure: 'replan' }),
			extraTools: tools,
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(server(), 1)).toContain('Send a new plan');
		expect(arrived.map(({ tool, args }) => [tool, args])).toEqual([
			['find_customer', { email: 'a@b.c' }],
			['last_order', { customer_id: 'cust-5' }],
		]);
		expect(result.plan?.steps).toHaveLength(1);
		expect(result.plan?.replaced?.[0].steps.map((step) => step.status)).toEqual(['done', 'failed']);
	});
});
