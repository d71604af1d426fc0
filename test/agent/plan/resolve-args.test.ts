// Issue #51: at execution, each reference of a step's args becomes the value its pointer finds in an earlier
// step's observation read as JSON; what cannot be read is a failed step with a sentence, never a throw.
import { resolveArgs } from '../../../src/agent/plan';

const observations = {
	1: JSON.stringify({
		id: 'c-7',
		'a/b': { 'm~n': [10, 20] },
		orders: [{ id: 'o-1' }, { id: 'o-2' }],
	}),
	2: 'HTTP 200 OK · application/json · 9 bytes\n{"id": 3}',
	3: 'plain text, then {"id": 4}',
	4: 'HTTP 200 OK · text/plain · 4 bytes\nnope',
};

describe('resolveArgs', () => {
	it('replaces nested references, in objects and arrays, with ~1 and ~0 escapes and the whole-value pointer', () => {
		const args = {
			customer: { $step: 1, pointer: '/id' },
			list: [1, { $step: 1, pointer: '/orders/1/id' }, [{ $step: 1, pointer: '/a~1b/m~0n/0' }]],
			everything: { $step: 1, pointer: '' },
			plain: { pointer: '/not-a-reference' },
		};
		const resolved = resolveArgs(args, observations);
		expect(resolved).toEqual({
			args: {
				customer: 'c-7',
				list: [1, 'o-2', [10]],
				everything: JSON.parse(observations[1]),
				plain: { pointer: '/not-a-reference' },
			},
		});
		expect(args.customer).toEqual({ $step: 1, pointer: '/id' }); // the plan's args are left as they were
	});

	it('gives each reference a value of its own: two references to one object share nothing', () => {
		const resolved = resolveArgs(
			{ a: { $step: 1, pointer: '/orders' }, b: { $step: 1, pointer: '/orders' } },
			observations,
		);
		if (!('args' in resolved)) throw new Error(resolved.problem);
		expect(resolved.args.a).toEqual(resolved.args.b);
		expect(resolved.args.a).not.toBe(resolved.args.b);
	});

	it("reads an http_request observation's body after its status line", () => {
		expect(resolveArgs({ x: { $step: 2, pointer: '/id' } }, observations)).toEqual({
			args: { x: 3 },
		});
	});

	it('fails the step, naming the place, the step and the pointer, on an observation that is not JSON', () => {
		expect(resolveArgs({ x: [{ $step: 3, pointer: '/id' }] }, observations)).toEqual({
			problem:
				'args.x[0]: the reference to step 3 at "/id" cannot be read: step 3\'s observation is not JSON (it begins "plain text, then {\\"id\\": 4}"; a result cut at observation_max_len is not JSON either)',
		});
		expect(resolveArgs({ x: { $step: 4, pointer: '' } }, observations)).toMatchObject({
			problem: expect.stringContaining("step 4's observation is not JSON"),
		});
	});

	it('fails the step on a pointer that finds nothing, and on a step with no observation', () => {
		expect(resolveArgs({ x: { $step: 1, pointer: '/orders/5/id' } }, observations)).toEqual({
			problem:
				'args.x: the reference to step 1 at "/orders/5/id" finds nothing: "/orders" is an array of 2 items; "5" is not one of its indexes (0 to 1)',
		});
		expect(resolveArgs({ x: { $step: 5, pointer: '' } }, observations)).toEqual({
			problem:
				'args.x: the reference to step 5 at "" cannot be read: step 5 has no observation (it did not run, or failed)',
		});
		expect(resolveArgs({ x: { $step: 1, pointer: 'id' } }, observations)).toEqual({
			problem: 'args.x: is not a reference of the form {"$step": N, "pointer": "/…"}',
		});
	});

	it('keeps a "__proto__" key an own key of the copy, never its prototype', () => {
		const resolved = resolveArgs(
			JSON.parse('{"__proto__": {"polluted": true}, "a": {"$step": 1, "pointer": "/id"}}'),
			observations,
		);
		if (!('args' in resolved)) throw new Error(resolved.problem);
		expect(Object.getPrototypeOf(resolved.args)).toBe(Object.prototype);
		expect(Object.keys(resolved.args)).toEqual(['__proto__', 'a']);
		expect((resolved.args as { polluted?: boolean }).polluted).toBeUndefined();
	});

	it('copies args 100 000 levels deep and resolves the reference at the bottom, without a stack overflow', () => {
		let deep: Record<string, unknown> = { leaf: { $step: 1, pointer: '/id' } };
		for (let level = 0; level < 100_000; level++) deep = { next: deep };
		const resolved = resolveArgs(deep, observations);
		if (!('args' in resolved)) throw new Error(resolved.problem);
		let bottom = resolved.args;
		let levels = 0;
		while ('next' in bottom) {
			bottom = bottom.next as Record<string, unknown>;
			levels++;
		}
		expect(levels).toBe(100_000);
		expect(bottom).toEqual({ leaf: 'c-7' });
	});
});
