// Issue #51: a plan is checked whole before any step runs; the first problem is a repair message naming the step.
import { checkPlan, readPlan, type Plan } from '../../../src/agent/plan';
import { DEFAULT_CONFIG, type AgentConfig } from '../../../src/settings/config';
import { createHttpRequestTool } from '../../../src/tools/http-request';
import type { Tool } from '../../../src/tools/tool';

const tool = (name: string, parameters: Record<string, unknown>): Tool => ({
	name,
	description: name,
	parameters,
	sideEffects: false,
	execute: async () => 'ok',
});

const tools = new Map<string, Tool>(
	[
		tool('find_customer', {
			type: 'object',
			properties: { email: { type: 'string' } },
			required: ['email'],
			additionalProperties: false,
		}),
		tool('refund', {
			type: 'object',
			properties: {
				order_id: { type: 'string', pattern: '^o-' },
				amount: { type: 'number', minimum: 0 },
				items: { type: 'array', items: { type: 'integer' }, maxItems: 2 },
			},
			required: ['order_id', 'amount'],
			additionalProperties: false,
		}),
		tool('either', {
			type: 'object',
			properties: {
				target: { anyOf: [{ type: 'object', required: ['id'] }, { type: 'string' }] },
				note: { type: 'string' },
			},
			required: ['target'],
		}),
		createHttpRequestTool(),
	].map((each) => [each.name, each]),
);

const config = {
	...DEFAULT_CONFIG,
	model: 'm',
	tool_settings: { http_request: { allowed_domains: ['api.example.com'] } },
} as AgentConfig;
const context = { tools, config, trustedText: '', callsLeft: 10 };

function planOf(...steps: Array<[string, Record<string, unknown>]>): Plan {
	const read = readPlan(
		{
			type: 'plan',
			steps: steps.map(([name, args], index) => ({
				step: index + 1,
				description: 'd',
				tool: name,
				args,
			})),
		},
		{ maxPlanSteps: 50 },
	);
	if (!('plan' in read)) throw new Error(read.problem);
	return read.plan;
}

const ref = (step: number, pointer: string) => ({ $step: step, pointer });

describe('checkPlan', () => {
	it('lets a valid plan with references through', () => {
		const plan = planOf(
			['find_customer', { email: 'a@example.com' }],
			['refund', { order_id: ref(1, '/last_order'), amount: 5 }],
		);
		expect(checkPlan(plan, context)).toBeUndefined();
	});

	it('refuses an unknown tool, naming the step and the tools there are', () => {
		expect(checkPlan(planOf(['find_customer', { email: 'a' }], ['delete_all', {}]), context)).toBe(
			'Step 2 (delete_all): tool "delete_all" is not available. Available tools: find_customer, refund, either, http_request. ' +
				'Nothing ran; send the plan again with this step fixed.',
		);
	});

	it('refuses invalid args, naming the step and the field', () => {
		expect(checkPlan(planOf(['find_customer', { email: 3 }]), context)).toBe(
			'Step 1 (find_customer): find_customer args are invalid: args.email: must be string. Nothing ran; send the plan again with this step fixed.',
		);
	});

	it('lets args through that are valid only because a reference stands for any value', () => {
		// As written, each reference is an object: a string with a pattern, a number with a minimum, an integer item.
		const plan = planOf(
			['find_customer', { email: 'a' }],
			['refund', { order_id: ref(1, '/id'), amount: ref(1, '/total'), items: [1, ref(1, '/n')] }],
		);
		expect(checkPlan(plan, context)).toBeUndefined();
	});

	it('still refuses what no value of a reference can fix: a missing field, an unknown key, too many items, a wrong sibling', () => {
		const problem = (args: Record<string, unknown>) =>
			checkPlan(planOf(['find_customer', { email: 'a' }], ['refund', args]), context);
		expect(problem({ order_id: ref(1, '/id') })).toMatch(
			/^Step 2 \(refund\): refund args are invalid: args: missing required property "amount"\./,
		);
		expect(problem({ order_id: ref(1, '/id'), amount: 1, extra: ref(1, '') })).toMatch(
			/args: unknown property "extra" is not allowed/,
		);
		expect(problem({ order_id: ref(1, '/id'), amount: 1, items: [ref(1, '/a'), 2, 3] })).toMatch(
			/args\.items: must NOT have more than 2 items/,
		);
		expect(problem({ order_id: ref(1, '/id'), amount: -1 })).toMatch(/args\.amount: must be >= 0/);
	});

	it('lets a reference inside an anyOf through (some value may match a branch); the resolved args are checked again when the step runs', () => {
		const plan = planOf(
			['find_customer', { email: 'a' }],
			['either', { target: { nested: ref(1, '/id') } }],
		);
		expect(checkPlan(plan, context)).toBeUndefined();
		expect(checkPlan(planOf(['either', { target: 3 }]), context)).toMatch(
			/^Step 1 \(either\): either args are invalid: /,
		);
	});

	it('refuses a step the egress rules refuse when its args hold no reference; one with a reference is checked as it runs', () => {
		const refused = planOf(
			['find_customer', { email: 'a' }],
			['http_request', { url: 'https://other.example.com/x' }],
		);
		expect(checkPlan(refused, context)).toBe(
			'Step 2 (http_request): http_request refused: host other.example.com is not in allowed_domains [api.example.com]; use one of those hosts. ' +
				'Nothing ran; send the plan again without this step, or with it fixed.',
		);
		expect(
			checkPlan(planOf(['http_request', { url: 'https://api.example.com/x' }]), context),
		).toBeUndefined();
		const referenced = planOf(
			['find_customer', { email: 'a' }],
			['http_request', { url: ref(1, '/url') }],
		);
		expect(checkPlan(referenced, context)).toBeUndefined();
	});

	it('refuses a plan with more steps than tool calls are left', () => {
		const plan = planOf(
			['find_customer', { email: 'a' }],
			['find_customer', { email: 'b' }],
			['find_customer', { email: 'c' }],
		);
		expect(checkPlan(plan, { ...context, callsLeft: 2 })).toBe(
			`Your plan has 3 steps, but the run has 2 tool calls left of max_tool_calls (${config.max_tool_calls}). ` +
				'Send a plan of at most 2 steps. Nothing ran.',
		);
		expect(checkPlan(plan, { ...context, callsLeft: 3 })).toBeUndefined();
	});
});
