import { runAgent } from '../../../src/agent/run-agent';
import { canonicalJson } from '../../../src/validation/canonical-json';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../../support/agent';
import {
	PRIVATE_ALLOWED,
	sendJson,
	startServer,
	useLoopbackGuard,
	type TestServer,
} from '../../support/servers/http-servers';

useLoopbackGuard();

/** Issue #17 §1: the loop breaker knows which calls have side effects, and never makes a write twice. */

describe('the loop breaker', () => {
	const server = useScriptedServer();
	let target: TestServer;
	beforeEach(async () => {
		target = await startServer((request, response) =>
			sendJson(response, { seen: request.method, n: target.requests.length }),
		);
	});

	const run = (config: Record<string, unknown> = {}) =>
		runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['http_request'],
				tool_settings: { http_request: PRIVATE_ALLOWED },
				max_steps: 10,
				...config,
			},
			prompt: `Check ${target.url}`,
		});

	it('answers a repeated GET from the earlier observation, and ends with loop at the loop_limit-th identical call', async () => {
		const get = action('http_request', { url: `${target.url}/status` });
		server().setScript([get, get, get, final('unreachable')]);
		const result = await run();
		expect(target.requests).toHaveLength(1);
		expect(result).toMatchObject({ finish_reason: 'loop' });
		expect(result.stop_detail).toBe(
			'http_request was called 3 times with the same arguments (loop_limit 3); first at step 1',
		);
		expect(result.trace[1]).toMatchObject({ repeat_of: 1 });
		expect(result.trace[1].observation).toMatch(
			/^\(repeated call: identical to step 1, not run again; the same result\)\n/,
		);
		expect(result.trace[1].observation).toContain('"n":1');
		expect(result.trace[2].error).toEqual({ type: 'limit', message: result.stop_detail });
		expect(result.used_tools.http_request.count).toBe(1);
	});

	it('never sends an identical POST twice: the model is told it already ran and what it returned', async () => {
		const post = action('http_request', {
			url: `${target.url}/orders`,
			method: 'POST',
			body: { sku: 'X' },
		});
		server().setScript([post, post, final('ordered once')]);
		const result = await run();
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'ordered once' });
		expect(target.requests.map((request) => request.method)).toEqual(['POST']);
		expect(lastUserMessage(server(), 2)).toMatch(
			/^Observation from http_request:\n<observation>\n\(repeated call: this identical http_request call already ran at step 1 and was not run again, since it has side effects\. It returned:\nHTTP 200/,
		);
	});

	it('never treats different arguments as a repeat, key order aside', async () => {
		server().setScript([
			action('http_request', { url: `${target.url}/a` }),
			action('http_request', { url: `${target.url}/b` }),
			action('http_request', { url: `${target.url}/a`, method: 'DELETE' }),
			final('three calls'),
		]);
		const result = await run();
		expect(result.finish_reason).toBe('final');
		expect(target.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
			'GET /a',
			'GET /b',
			'DELETE /a',
		]);
		expect(result.trace.some((step) => step.repeat_of !== undefined)).toBe(false);
		expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
			canonicalJson({ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }),
		);
	});

	it('with loop_limit 0 never ends the run on repeats, and still never repeats a write', async () => {
		const post = action('http_request', { url: `${target.url}/orders`, method: 'POST' });
		server().setScript([post, post, post, post, final('done')]);
		const result = await run({ loop_limit: 0 });
		expect(result.finish_reason).toBe('final');
		expect(target.requests).toHaveLength(1);
	});

	it('tells the model a repeated write failed the first time, without trying it again', async () => {
		const { tool, calls } = probeTool('send_invoice', async () => {
			throw new Error('the mail server said no');
		});
		server().setScript([
			action('send_invoice', { value: 1 }),
			action('send_invoice', { value: 1 }),
			final('not sent'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['send_invoice'] },
			extraTools: [tool],
			prompt: 'q',
		});
		expect(calls).toHaveLength(1);
		expect(result.finish_reason).toBe('final');
		expect(lastUserMessage(server(), 2)).toContain(
			'already ran at step 1 and was not run again, since it has side effects. It failed: send_invoice failed: the mail server said no',
		);
	});

	it('runs a repeated read again when the first try failed', async () => {
		let attempts = 0;
		const { tool, calls } = probeTool('lookup', async () => {
			if (++attempts === 1) throw new Error('busy');
			return 'found';
		});
		tool.sideEffects = false;
		server().setScript([
			action('lookup', { value: 1 }),
			action('lookup', { value: 1 }),
			final('found it'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['lookup'] },
			extraTools: [tool],
			prompt: 'q',
		});
		expect(calls).toHaveLength(2);
		expect(result.trace[1].observation).toBe('found');
	});

	it("compares a library tool's calls by its canonicalCall, and by the args when canonicalCall throws", async () => {
		const { tool, calls } = probeTool('send_sms');
		// Say only the value reaches the phone network; a form that throws for 7 leaves such calls compared by args.
		tool.canonicalCall = (args: { value: number }) => {
			if (args.value === 7) throw new Error('no form');
			return { message: args.value % 10 };
		};
		server().setScript([
			action('send_sms', { value: 1 }),
			action('send_sms', { value: 11 }),
			action('send_sms', { value: 2 }),
			action('send_sms', { value: 7 }),
			action('send_sms', { value: 7 }),
			final('sent'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['send_sms'], loop_limit: 0 },
			extraTools: [tool],
			prompt: 'q',
		});
		expect(calls).toEqual([{ value: 1 }, { value: 2 }, { value: 7 }]);
		expect(result.trace.map((step) => step.repeat_of)).toEqual([
			undefined,
			1,
			undefined,
			undefined,
			4,
			undefined,
		]);
	});

	it('refuses a loop_limit that is not a whole number', async () => {
		await expect(
			runAgent({ model: modelFor(server()), config: { model: 'm', loop_limit: 1.5 }, prompt: 'q' }),
		).rejects.toThrow('loop_limit must be an integer from 0 to 1000');
	});
});
