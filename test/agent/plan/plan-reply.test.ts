// Issue #51: a plan reply is read strictly; each problem is one repair sentence that names the step and the fix.
import { readPlan } from '../../../src/agent/plan';

const step = (number: number, tool: string, args: Record<string, unknown>) => ({
	step: number,
	description: `step ${number} does a thing`,
	tool,
	args,
});
const plan = (...steps: unknown[]) => ({ type: 'plan', steps });
const limits = { maxPlanSteps: 10 };
const problemOf = (value: unknown, maxPlanSteps = 10) => {
	const read = readPlan(value, { maxPlanSteps });
	if ('plan' in read) throw new Error('expected a problem');
	return read.problem;
};

describe('readPlan', () => {
	it("reads the steps, and each step's references to earlier steps with their pointers", () => {
		const read = readPlan(
			plan(
				step(1, 'find_customer', { email: 'a@example.com' }),
				step(2, 'last_order', { customer: { $step: 1, pointer: '/id' } }),
				step(3, 'refund', {
					orders: [
						{ $step: 2, pointer: '/order/id' },
						{ $step: 1, pointer: '' },
					],
				}),
			),
			limits,
		);
		if (!('plan' in read)) throw new Error(read.problem);
		expect(read.plan.steps.map((each) => each.tool)).toEqual([
			'find_customer',
			'last_order',
			'refund',
		]);
		expect(read.plan.references.get(1)).toBeUndefined();
		expect(read.plan.references.get(3)).toEqual([
			{ path: ['orders', 0], step: 2, pointer: '/order/id', tokens: ['order', 'id'] },
			{ path: ['orders', 1], step: 1, pointer: '', tokens: [] },
		]);
	});

	it('refuses a reference to a later step, and to the step itself, naming the step and the reference', () => {
		expect(
			problemOf(
				plan(step(1, 't', {}), step(2, 't', { x: { $step: 3, pointer: '/a' } }), step(3, 't', {})),
			),
		).toBe(
			'Step 2: the reference at args.x reads step 3, which runs after step 2; a step may read only the observations of earlier steps (1 to 1).',
		);
		expect(problemOf(plan(step(1, 't', { x: [{ $step: 1, pointer: '' }] })))).toBe(
			'Step 1: the reference at args.x[0] reads step 1, which is this step itself; a step may read only the observations of earlier steps (step 1 has none: give the value itself).',
		);
	});

	it('refuses a bad pointer, a reference with a third key, a "$step" that is not a step number', () => {
		expect(
			problemOf(plan(step(1, 't', {}), step(2, 't', { x: { $step: 1, pointer: 'id' } }))),
		).toMatch(
			/^Step 2: args\.x: the reference to step 1 has the pointer "id", which must be "" \(the whole observation\) or start with "\/"/,
		);
		expect(
			problemOf(plan(step(1, 't', {}), step(2, 't', { x: { $step: 1, pointer: '/a~2' } }))),
		).toMatch(/^Step 2: .*"~0" for "~"/);
		expect(
			problemOf(
				plan(step(1, 't', {}), step(2, 't', { x: { $step: 1, pointer: '/a', default: 3 } })),
			),
		).toMatch(
			/^Step 2: args\.x: a reference holds exactly "\$step" and "pointer", but this one also held "default"/,
		);
		expect(
			problemOf(plan(step(1, 't', {}), step(2, 't', { x: { $step: '1', pointer: '/a' } }))),
		).toMatch(/^Step 2: args\.x: "\$step" must be the number of an earlier step/);
		expect(problemOf(plan(step(1, 't', { $step: 1, pointer: '' })))).toMatch(
			/"args" itself cannot be a reference/,
		);
	});

	it('refuses steps out of order or misnumbered', () => {
		expect(problemOf(plan(step(2, 't', {}), step(1, 't', {})))).toBe(
			'Step 1: "step" must be 1, but it was 2: number the steps 1, 2, 3, … in the order they run.',
		);
		expect(problemOf(plan(step(1, 't', {}), step(3, 't', {})))).toMatch(
			/^Step 2: "step" must be 2, but it was 3/,
		);
		expect(problemOf(plan(step(1, 't', {}), { ...step(2, 't', {}), step: '2' }))).toMatch(
			/^Step 2: "step" must be 2, but it was "2"/,
		);
	});

	it('refuses more steps than max_plan_steps, and none', () => {
		const four = [1, 2, 3, 4].map((number) => step(number, 't', {}));
		expect(problemOf(plan(...four), 3)).toBe(
			'Your plan held 4 steps; at most 3 (max_plan_steps). Send a shorter plan: join or leave out steps.',
		);
		expect('plan' in readPlan(plan(...four), { maxPlanSteps: 4 })).toBe(true);
		expect(problemOf(plan())).toMatch(/"steps" was empty/);
		expect(() => readPlan(plan(...four), { maxPlanSteps: 51 })).toThrow(
			/max_plan_steps must be a whole number from 1 to 50/,
		);
	});

	it('holds exactly its keys: an extra key in the plan or a step, no description, args that are not an object', () => {
		expect(problemOf({ ...plan(step(1, 't', {})), answer: 'done' })).toMatch(
			/^Your plan held "answer"; a plan holds only "type" and "steps"/,
		);
		expect(problemOf(plan({ ...step(1, 't', {}), parameters: {} }))).toMatch(
			/^Step 1: a step holds exactly .* also held "parameters"/,
		);
		const { description: _, ...bare } = step(1, 't', {});
		expect(problemOf(plan(bare))).toBe(
			'Step 1: "description" must say in words what the step does, as a string.',
		);
		expect(problemOf(plan({ ...step(1, 't', {}), description: 'x'.repeat(501) }))).toMatch(
			/^Step 1: "description" was 501 characters long; at most 500/,
		);
		expect(problemOf(plan({ ...step(1, 't', {}), args: [] }))).toBe(
			'Step 1: "args" must be a JSON object ({} for none), but it was an array.',
		);
		expect(problemOf(plan({ ...step(1, '', {}) }))).toMatch(/^Step 1: "tool" must be the name/);
		expect(problemOf({ type: 'plan', steps: {} })).toMatch(/^"steps" must be an array/);
	});

	it('refuses args 100 000 levels deep with a sentence, without a stack overflow', () => {
		let deep: Record<string, unknown> = { leaf: 1 };
		for (let level = 0; level < 100_000; level++) deep = { next: deep };
		expect(problemOf(plan(step(1, 't', deep)))).toBe(
			'Step 1: args nest objects or arrays more than 64 levels deep; send flatter args.',
		);
	});
});
