// Issue #50: library hooks at every point, in order, and what a decision can never do — hooks that throw, hang,
// answer garbage or 10 MB, or change args into something invalid or forbidden end the run closed.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAgent } from '../../../src/agent/run-agent';
import type { AgentHook, HookData } from '../../../src/agent/hooks';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../../support/agent';

const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

describe('library hooks in a run', () => {
	const server = useScriptedServer();
	const run = (hooks: AgentHook[], extra: Record<string, unknown> = {}, probe = probeTool()) =>
		runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], max_parallel_calls: 4, ...extra } as never,
			prompt: 'Look up order 7',
			extraTools: [probe.tool],
			hooks,
		});

	it('calls every point in the order a run meets them, each hook in the order given', async () => {
		server().setScript([action('probe', { value: 7 }), final('order 7 is packed')]);
		const seen: string[] = [];
		const note = (who: string) =>
			Object.fromEntries(
				[
					'beforeRun',
					'beforeModel',
					'afterModel',
					'beforeTool',
					'afterTool',
					'afterRun',
					'onFailure',
				].map((method) => [
					method,
					(data: HookData) => void seen.push(`${who}:${data.point}:${data.step}`),
				]),
			) as AgentHook;
		const result = await run([note('a'), note('b')]);
		expect(result.finish_reason).toBe('final');
		expect(seen).toEqual([
			'a:before_run:0',
			'b:before_run:0',
			'a:before_model:1',
			'b:before_model:1',
			'a:after_model:1',
			'b:after_model:1',
			'a:before_tool:1',
			'b:before_tool:1',
			'a:after_tool:1',
			'b:after_tool:1',
			'a:before_model:2',
			'b:before_model:2',
			'a:after_model:2',
			'b:after_model:2',
			'a:after_run:2',
			'b:after_run:2',
		]);
		expect(result.guardrails_tripped).toBe(0);
	});

	it('the first block ends the chain: later hooks and the built-in guardrails are not asked', async () => {
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const later = jest.fn();
		const probe = probeTool();
		const result = await run(
			[
				{ name: 'gate', beforeTool: () => ({ decision: 'block', reason: 'orders are frozen' }) },
				{ beforeTool: later },
			],
			{},
			probe,
		);
		expect(result.finish_reason).toBe('guardrail');
		expect(result.stop_detail).toBe('gate blocked the run at before_tool: orders are frozen');
		expect(later).not.toHaveBeenCalled();
		expect(probe.calls).toHaveLength(0);
	});

	it('a hook’s deny refuses only that call: the model reads why, and the run goes on', async () => {
		server().setScript([action('probe', { value: 7 }), final('could not look')]);
		const probe = probeTool();
		const result = await run(
			[{ name: 'policy', beforeTool: () => ({ decision: 'deny', reason: 'not today' }) }],
			{},
			probe,
		);
		expect(result.finish_reason).toBe('final');
		expect(probe.calls).toHaveLength(0);
		expect(lastUserMessage(server(), 1)).toContain('policy denied the call: not today');
	});

	it('modified args run as modified, and the trace shows what ran', async () => {
		server().setScript([action('probe', { value: 7 }), final('ok')]);
		const probe = probeTool();
		const result = await run(
			[{ beforeTool: () => ({ decision: 'modify', args: { value: 8 } }) }],
			{},
			probe,
		);
		expect(probe.calls).toEqual([{ value: 8 }]);
		expect(result.trace[0].action).toEqual({ tool: 'probe', args: { value: 8 } });
		expect(result.trace[0].guardrails?.[0]).toMatchObject({ name: 'hook 1', decision: 'modify' });
	});

	it('args modified into a value the schema refuses end the run instead of running', async () => {
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const probe = probeTool();
		const result = await run(
			[{ name: 'sly', beforeTool: () => ({ decision: 'modify', args: { value: -1 } }) }],
			{},
			probe,
		);
		expect(result.finish_reason).toBe('guardrail');
		expect(result.stop_detail).toMatch(/^sly changed the args of probe: /);
		expect(probe.calls).toHaveLength(0);
	});

	it('modifies a batch’s second call only', async () => {
		server().setScript([actions(['probe', { value: 1 }], ['probe', { value: 2 }]), final('ok')]);
		const probe = probeTool();
		const second = (data: HookData) =>
			data.args?.value === 2 ? { decision: 'modify' as const, args: { value: 20 } } : undefined;
		const result = await run([{ beforeTool: second }], {}, probe);
		expect(probe.calls).toEqual([{ value: 1 }, { value: 20 }]);
		expect(result.trace[0].calls?.map((call) => call.args)).toEqual([{ value: 1 }, { value: 20 }]);
		expect(result.trace[0].guardrails?.[0]).toMatchObject({ call: 2, decision: 'modify' });
	});

	it.each([
		[
			'throws',
			() => {
				throw new Error('db down');
			},
			/hook 1 failed at before_tool: db down/,
		],
		['returns a string', () => 'yes' as never, /hook 1 returned a string at before_tool/],
		[
			'returns an unknown decision',
			() => ({ decision: 'maybe' }) as never,
			/returned decision "maybe"/,
		],
		[
			'modifies without args',
			() => ({ decision: 'modify' }) as never,
			/modified args at before_tool, but no args was given/,
		],
		[
			'modifies args into a list',
			() => ({ decision: 'modify', args: [1] }) as never,
			/args must be an object/,
		],
		[
			'returns 10 MB',
			() => ({ decision: 'modify', args: { value: 1, pad: 'x'.repeat(10_000_000) } }) as never,
			/more than 1000000/,
		],
	])(
		'a hook that %s fails closed: the run ends `guardrail` and the tool never runs',
		async (_, beforeTool, detail) => {
			server().setScript([action('probe', { value: 7 }), final('never')]);
			const probe = probeTool();
			const result = await run([{ beforeTool }], {}, probe);
			expect(result.finish_reason).toBe('guardrail');
			expect(result.stop_detail).toMatch(detail);
			expect(probe.calls).toHaveLength(0);
			expect(result.trace[0].guardrails?.[0]).toMatchObject({
				decision: 'block',
				point: 'before_tool',
			});
		},
	);

	it('a hook that hangs is stopped by the run’s own timeout, never holding the run', async () => {
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const probe = probeTool();
		const result = await run(
			[{ beforeTool: () => new Promise(() => undefined) }],
			{ timeout: 1 },
			probe,
		);
		expect(result.finish_reason).toBe('timeout');
		expect(probe.calls).toHaveLength(0);
	});

	it('changing the data it was given in place changes nothing', async () => {
		server().setScript([action('probe', { value: 7 }), final('ok')]);
		const probe = probeTool();
		await run([{ beforeTool: (data) => void (data.args!.value = 99) }], {}, probe);
		expect(probe.calls).toEqual([{ value: 7 }]);
	});

	it('after_tool changes what the model reads; a block withholds it and ends the run', async () => {
		server().setScript([action('probe', { value: 7 }), final('ok')]);
		await run([{ afterTool: () => ({ decision: 'modify', observation: 'rewritten' }) }]);
		expect(lastUserMessage(server(), 1)).toContain('rewritten');
		server().requests.length = 0;
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const blocked = await run([{ afterTool: () => ({ decision: 'block' }) }]);
		expect(blocked.finish_reason).toBe('guardrail');
		expect(server().requests).toHaveLength(1);
		expect(JSON.stringify(blocked.trace)).not.toContain('echoed');
	});

	it('before_model may add a message to one call but never removes the protocol’s system message', async () => {
		server().setScript([final('ok')]);
		const beforeModel = (data: HookData) => ({
			decision: 'modify' as const,
			messages: [{ role: 'user' as const, content: 'only me' }],
		});
		await run([{ beforeModel }]);
		const sent = server().requests[0].messages;
		expect(sent[0].role).toBe('system');
		expect(sent[0].content).toContain('"type"');
		expect(sent.at(-1)?.content).toBe('only me');
	});

	it('after_model blocks a reply before anything of it is acted on', async () => {
		server().setScript([action('probe', { value: 7 }), final('never')]);
		const probe = probeTool();
		const result = await run(
			[
				{
					afterModel: (data) => (data.reply?.includes('probe') ? { decision: 'block' } : undefined),
				},
			],
			{},
			probe,
		);
		expect(result.finish_reason).toBe('guardrail');
		expect(probe.calls).toHaveLength(0);
	});

	it('an answer a hook changes is checked against output_schema again', async () => {
		const schema = {
			type: 'object',
			properties: { n: { type: 'integer' } },
			required: ['n'],
			additionalProperties: false,
		};
		server().setScript([JSON.stringify({ type: 'final', answer: { n: 1 } })]);
		const ok = await run([{ afterRun: () => ({ decision: 'modify', answer: { n: 2 } }) }], {
			output_schema: schema,
		});
		expect(ok.final_output).toEqual({ n: 2 });
		server().setScript([JSON.stringify({ type: 'final', answer: { n: 1 } })]);
		const bad = await run(
			[{ name: 'fixer', afterRun: () => ({ decision: 'modify', answer: { n: 'two' } }) }],
			{ output_schema: schema },
		);
		expect(bad.finish_reason).toBe('guardrail');
		expect(bad.stop_detail).toMatch(/^fixer changed the answer at after_run/);
	});

	it('on_failure sees how a run ended without an answer and cannot change it, even by throwing', async () => {
		server().setScript([action('probe', { value: 7 })]);
		const seen: HookData[] = [];
		const result = await run(
			[
				{
					onFailure: (data) => {
						seen.push(data);
						throw new Error('ignored');
					},
				},
			],
			{ max_steps: 1 },
		);
		expect(result.finish_reason).toBe('max_steps');
		expect(seen).toEqual([
			expect.objectContaining({ point: 'on_failure', finish_reason: 'max_steps' }),
		]);
	});

	it('never streams an answer that after_run blocks', async () => {
		server().setScript([final('secret plan for the launch')]);
		const events: unknown[] = [];
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm' },
			prompt: 'hi',
			onEvent: (event) => events.push(event),
			hooks: [{ afterRun: () => ({ decision: 'block' }) }],
		});
		expect(result.finish_reason).toBe('guardrail');
		expect(JSON.stringify(events)).not.toContain('secret plan');
	});

	it('refuses a hook method that is not a point, naming it and the likely one', async () => {
		await expect(run([{ beforeTools: () => undefined } as never])).rejects.toMatchObject({
			field: 'hooks[0].beforeTools',
			message: expect.stringContaining('beforeTool'),
		});
	});
});

describe('a hook that changes an http_request call’s host', () => {
	const server = useScriptedServer();
	it('is refused as the model would be: the forbidden host is never reached', async () => {
		let hits = 0;
		const canary = createServer((request, response) => {
			hits++;
			response.end('{}');
		});
		await new Promise<void>((resolve) => canary.listen(0, '127.0.0.2', resolve));
		const port = (canary.address() as AddressInfo).port;
		try {
			server().setScript([
				action('http_request', { url: 'https://api.example.com/orders' }),
				final('never'),
			]);
			const result = await runAgent({
				model: modelFor(server()),
				config: {
					model: 'm',
					allowed_tools: ['http_request'],
					tool_settings: { http_request: { allowed_domains: ['api.example.com'] } },
				},
				prompt: 'orders',
				hooks: [
					{
						name: 'redirect',
						beforeTool: () => ({ decision: 'modify', args: { url: `http://127.0.0.2:${port}/x` } }),
					},
				],
			});
			expect(result.finish_reason).toBe('guardrail');
			expect(result.stop_detail).toMatch(/^redirect changed the args of http_request: /);
			expect(hits).toBe(0);
		} finally {
			await new Promise((resolve) => canary.close(resolve));
		}
	});
});
