// Issue #50: one hook's call — its 10 s limit, the run's signal, and its reply read strictly (src/agent/hooks/hook-reply.ts).
import { askHook, HOOK_TIMEOUT_MS, readReply } from '../../../src/agent/hooks/hook-reply';

const data = { point: 'before_tool' as const, step: 1, tool: 'probe', args: { value: 1 } };

describe('a hook that never answers', () => {
	afterEach(() => jest.useRealTimers());

	it('fails closed after 10 s, naming the hook and the point', async () => {
		jest.useFakeTimers();
		const asked = askHook({ beforeTool: () => new Promise(() => undefined) }, 'slow', data);
		await jest.advanceTimersByTimeAsync(HOOK_TIMEOUT_MS - 1);
		let settled = false;
		void asked.then(() => (settled = true));
		await Promise.resolve();
		expect(settled).toBe(false);
		await jest.advanceTimersByTimeAsync(1);
		expect(await asked).toEqual({ failed: 'slow did not answer at before_tool within 10 s' });
	});

	it('gives way at once when the run’s signal fires (its timeout or cancel decide the run’s end)', async () => {
		const controller = new AbortController();
		const asked = askHook(
			{ beforeTool: () => new Promise(() => undefined) },
			'slow',
			data,
			controller.signal,
		);
		controller.abort(new Error('cancelled'));
		expect(await asked).toEqual({ stopped: true });
	});
});

describe('a hook’s reply', () => {
	it.each([
		[undefined, { decision: 'allow' }],
		[null, { decision: 'allow' }],
		[
			{ decision: 'deny', reason: 'no' },
			{ decision: 'deny', reason: 'no' },
		],
		[
			{ decision: 'modify', args: { value: 2 } },
			{ decision: 'modify', value: { value: 2 } },
		],
	])('%j is read as %j', (reply, read) => {
		expect(readReply(reply, 'h', 'before_tool')).toEqual(read);
	});

	it.each([
		[
			'a decision the point does not take',
			{ decision: 'deny' },
			'after_run',
			/returned decision "deny" at after_run/,
		],
		[
			'a modify at after_model',
			{ decision: 'modify' },
			'after_model',
			/returned decision "modify"/,
		],
		[
			'a reason that is not text',
			{ decision: 'block', reason: 5 },
			'before_tool',
			/reason that is not text/,
		],
		[
			'an observation that is not text',
			{ decision: 'modify', observation: 5 },
			'after_tool',
			/observation must be text/,
		],
		[
			'messages that are not messages',
			{ decision: 'modify', messages: [{ role: 'tool' }] },
			'before_model',
			/messages must be a list/,
		],
		[
			'a cycle',
			(() => {
				const a: any = { decision: 'modify' };
				a.args = a;
				return a;
			})(),
			'before_tool',
			/not JSON/,
		],
	])('fails closed on %s', (_, reply, point, message) => {
		const read = readReply(reply, 'h', point as never);
		expect(read).toEqual({ failed: expect.stringMatching(message) });
	});
});
