// Several tool calls in one reply (issue #42) through the library: the loop runs a batch as one step.
import { runAgent } from '../../../src/agent/run-agent';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../../support/agent';
import { startHoldingTarget } from '../../support/servers/holding-target';

const actions = (...calls: Array<[string, Record<string, unknown>]>) =>
	JSON.stringify({ type: 'actions', calls: calls.map(([tool, args]) => ({ tool, args })) });

const startTarget = (holdUntil = 1, holdMs = 0) => startHoldingTarget({ holdUntil, holdMs });

const httpConfig = (extra: Record<string, unknown> = {}) => ({
	model: 'm',
	allowed_tools: ['http_request'],
	tool_settings: { http_request: { allowed_domains: ['127.0.0.1'], allow_private_network: true } },
	single_call_timeout: 10,
	...extra,
});

describe('an "actions" reply runs its calls as one step (runAgent)', () => {
	const server = useScriptedServer();

	it('three GETs are in flight at once: the target sees three open requests before it answers any', async () => {
		const target = await startTarget(3);
		try {
			server().setScript([
				actions(
					['http_request', { url: `${target.url}/paris` }],
					['http_request', { url: `${target.url}/berlin` }],
					['http_request', { url: `${target.url}/rome` }],
				),
				final('compared'),
			]);
			const result = await runAgent({
				model: modelFor(server()),
				config: httpConfig(),
				prompt: 'compare',
			});
			expect(result.finish_reason).toBe('final');
			expect(target.mostOpen()).toBe(3);
			expect(target.events.slice(0, 3).every((event) => event.startsWith('start'))).toBe(true);
			// One step, each call in the trace in the order asked, each counted in used_tools.
			expect(result.trace).toHaveLength(2);
			expect(result.trace[0].calls?.map((call) => call.observation)).toEqual([
				expect.stringContaining('/paris'),
				expect.stringContaining('/berlin'),
				expect.stringContaining('/rome'),
			]);
			expect(result.used_tools.http_request.count).toBe(3);
			// The model got all three back in one message, labelled by number and tool, in call order.
			const observations = lastUserMessage(server(), 1);
			expect(observations.indexOf('\ncall 1 (http_request):\n')).toBeLessThan(
				observations.indexOf('\ncall 2 (http_request):\n'),
			);
			expect(observations.indexOf('/berlin')).toBeLessThan(observations.indexOf('/rome'));
			expect(observations).toMatch(/^Observations:\n<observation>\n[\s\S]*never an instruction\.$/);
			expect(
				server().requests[1].messages.filter((message) => message.role === 'user'),
			).toHaveLength(2);
		} finally {
			await target.close();
		}
	});

	it('GET, POST, GET: the POST starts only after the first GET finished, the second GET only after the POST', async () => {
		const target = await startTarget(1, 300);
		try {
			server().setScript([
				actions(
					['http_request', { url: `${target.url}/first` }],
					['http_request', { url: `${target.url}/write`, method: 'POST', body: '{}' }],
					['http_request', { url: `${target.url}/second` }],
				),
				final('done'),
			]);
			const result = await runAgent({
				model: modelFor(server()),
				config: httpConfig(),
				prompt: 'go',
			});
			expect(result.finish_reason).toBe('final');
			expect(target.events).toEqual([
				'start GET /first',
				'finish GET /first',
				'start POST /write',
				'finish POST /write',
				'start GET /second',
				'finish GET /second',
			]);
		} finally {
			await target.close();
		}
	});

	it('one call with invalid args: nothing runs, and the repair turn names the call by its number', async () => {
		const probe = probeTool();
		server().setScript([
			actions(['probe', { value: 1 }], ['probe', { value: -1 }]),
			final('fixed'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'go',
		});
		expect(probe.calls).toEqual([]);
		expect(result.trace[0].error?.type).toBe('invalid_args');
		const repair = lastUserMessage(server(), 1);
		expect(repair).toContain('call 2 (probe): probe args are invalid');
		expect(repair).toContain('None of the calls ran');
	});

	it('a tool outside the whitelist in any call: nothing runs', async () => {
		const probe = probeTool();
		server().setScript([
			actions(['probe', { value: 1 }], ['shell', { cmd: 'rm -rf /' }]),
			final('ok'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'go',
		});
		expect(probe.calls).toEqual([]);
		expect(result.trace[0].error?.type).toBe('tool_not_allowed');
		expect(lastUserMessage(server(), 1)).toContain('call 2 (shell)');
	});

	it('max_tool_calls 2 with a batch of 3: two run, the third is told the limit was reached, the run ends max_tool_calls', async () => {
		const probe = probeTool();
		server().setScript([
			actions(['probe', { value: 1 }], ['probe', { value: 2 }], ['probe', { value: 3 }]),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], max_tool_calls: 2 },
			extraTools: [probe.tool],
			prompt: 'go',
		});
		expect(probe.calls).toEqual([{ value: 1 }, { value: 2 }]);
		expect(result.finish_reason).toBe('max_tool_calls');
		expect(result.trace[0].calls?.[2].observation).toContain(
			'probe was not run: max_tool_calls (2) reached',
		);
		expect(result.used_tools.probe.count).toBe(2);
	});

	it('a call repeated inside one batch runs once and both get its result', async () => {
		const probe = probeTool();
		server().setScript([actions(['probe', { value: 5 }], ['probe', { value: 5 }]), final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'go',
		});
		expect(probe.calls).toEqual([{ value: 5 }]);
		expect(result.trace[0].calls?.[1]).toMatchObject({
			repeat_of: 'call 1',
			observation: '{"echoed":{"value":5}}',
		});
	});

	it('max_parallel_calls 1: "actions" is a protocol error whose repair says to send one action; nothing runs', async () => {
		const probe = probeTool();
		server().setScript([
			actions(['probe', { value: 1 }]),
			action('probe', { value: 1 }),
			final('ok'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], max_parallel_calls: 1 },
			extraTools: [probe.tool],
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].error?.type).toBe('parse_error');
		expect(lastUserMessage(server(), 1)).toContain('Send one action');
		expect(server().requests[0].messages[0].content).not.toContain('actions');
		expect(probe.calls).toEqual([{ value: 1 }]);
	});

	it("a per-tool timeout ends that tool's call, naming tool_settings.<tool>.timeout, while single_call_timeout is long", async () => {
		const slow = probeTool(
			'slow',
			(_args, signal) =>
				new Promise((_resolve, reject) =>
					signal.addEventListener('abort', () => reject(new Error('aborted'))),
				),
		);
		const fast = probeTool('fast');
		server().setScript([actions(['slow', { value: 1 }], ['fast', { value: 2 }]), final('ok')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['slow', 'fast'],
				single_call_timeout: 600,
				tool_settings: { slow: { timeout: 0.05 } },
			},
			extraTools: [slow.tool, fast.tool],
			prompt: 'go',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].calls?.[0].error?.message).toContain(
			'tool_settings.slow.timeout (0.05 s)',
		);
		expect(result.trace[0].calls?.[1].observation).toContain('"value":2');
	});

	it('a tool_settings timeout that is not a number of seconds is refused, naming the field', async () => {
		const probe = probeTool();
		await expect(
			runAgent({
				model: modelFor(server()),
				config: {
					model: 'm',
					allowed_tools: ['probe'],
					tool_settings: { probe: { timeout: 'soon' } },
				},
				extraTools: [probe.tool],
				prompt: 'go',
			}),
		).rejects.toThrow('tool_settings.probe.timeout must be a number of seconds from 0.001 to 3600');
	});

	it('streams an action and an observation event per call of the batch, in call order', async () => {
		const probe = probeTool();
		server().setScript([actions(['probe', { value: 1 }], ['probe', { value: 2 }]), final('ok')]);
		const events: Array<{ type: string; tool?: string; step?: number }> = [];
		await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'go',
			onEvent: (event) => events.push(event as { type: string }),
		});
		const perCall = events.filter(
			(event) => event.type === 'action' || event.type === 'observation',
		);
		expect(perCall.map((event) => `${event.type} ${event.step}`)).toEqual([
			'action 1',
			'action 1',
			'observation 1',
			'observation 1',
		]);
	});

	it('a tool with its own settings schema takes timeout beside its settings, and never receives it', async () => {
		const target = await startTarget(1);
		try {
			server().setScript([action('http_request', { url: `${target.url}/one` }), final('ok')]);
			const config = httpConfig();
			config.tool_settings.http_request = {
				...config.tool_settings.http_request,
				timeout: 5,
			} as never;
			const result = await runAgent({ model: modelFor(server()), config, prompt: 'go' });
			expect(result.finish_reason).toBe('final');
			expect(target.events).toEqual(['start GET /one', 'finish GET /one']);
		} finally {
			await target.close();
		}
	});
});
