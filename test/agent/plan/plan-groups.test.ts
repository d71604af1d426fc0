// Issue #51: a plan runs as batches do: consecutive read-only steps together, unless one reads another of its group;
// a step with side effects alone.
import { groupSteps, readPlan, type Plan } from '../../../src/agent/plan';
import type { Tool } from '../../../src/tools/tool';

const tool = (name: string, sideEffects: Tool['sideEffects']): Tool => ({
	name,
	description: name,
	parameters: { type: 'object' },
	sideEffects,
	execute: async () => 'ok',
});
const tools = new Map<string, Tool>(
	[
		tool('read', false),
		tool('write', true),
		tool('http', (args: { method?: string }) => (args.method ?? 'GET') !== 'GET'),
		tool('default', undefined),
	].map((each) => [each.name, each]),
);

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
const ref = (step: number) => ({ $step: step, pointer: '/id' });

describe('groupSteps', () => {
	it('runs consecutive read-only steps together and each step with side effects alone', () => {
		const plan = planOf(
			['read', {}],
			['read', {}],
			['write', {}],
			['read', {}],
			['default', {}],
			['http', {}],
			['http', { method: 'POST' }],
		);
		expect(groupSteps(plan, tools)).toEqual([[1, 2], [3], [4], [5], [6], [7]]);
	});

	it('opens a new group at a step that reads a step of its own group, not at one that reads an earlier group', () => {
		const plan = planOf(
			['read', {}],
			['read', {}],
			['read', { x: ref(2) }],
			['read', { x: ref(1) }],
			['write', {}],
			['read', { x: ref(5) }],
			['read', { x: ref(3) }],
		);
		expect(groupSteps(plan, tools)).toEqual([[1, 2], [3, 4], [5], [6, 7]]);
	});

	it('counts a referencing step of a tool that decides its side effects from its args as having them', () => {
		const plan = planOf(
			['read', {}],
			['http', { url: ref(1) }],
			['http', { url: 'x' }],
			['unknown', {}],
		);
		expect(groupSteps(plan, tools)).toEqual([[1], [2], [3], [4]]);
	});
});
