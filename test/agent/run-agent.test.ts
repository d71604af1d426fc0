import { observationMessage } from '../../src/agent/protocol/prompt';
import { runAgent } from '../../src/agent/run-agent';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../support/agent';

const baseConfig = { model: 'scripted-model', max_steps: 5 };

describe('runAgent: the loop, through the real openai SDK', () => {
	const server = useScriptedServer();

	it('answers a single-turn prompt with a final answer, a one-step trace and both new turns', async () => {
		server().setScript(final('Paris'));
		const result = await runAgent({
			model: modelFor(server()),
			config: baseConfig,
			prompt: 'Capital of France?',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('Paris');
		expect(result.trace).toHaveLength(1);
		expect(result.trace[0]).toMatchObject({ step: 1, final: { answer: 'Paris' }, repair: false });
		expect(result.messages).toEqual([
			{ role: 'user', content: 'Capital of France?' },
			{ role: 'assistant', content: 'Paris' },
		]);
		expect(result.used_tools).toEqual({});
		expect(result.trace[0].elapsed_ms).toBeGreaterThanOrEqual(result.trace[0].model_ms);
	});

	it('puts the answer and how the run went before the step by step: final_answer … cost first, trace and messages last', async () => {
		server().setScript(final('Paris'));
		const result = await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		const keys = Object.keys(result);
		const at = (key: string) => keys.indexOf(key);
		expect(keys.slice(0, 5)).toEqual([
			'final_answer',
			'finish_reason',
			'used_tools',
			'metrics',
			'usage',
		]);
		for (const first of ['final_answer', 'finish_reason', 'used_tools', 'metrics', 'usage', 'cost'])
			for (const later of ['trace', 'messages']) expect(at(first)).toBeLessThan(at(later));
	});

	it('records the wall time of the step that ends the run', async () => {
		server().setScript({ text: final('slow answer'), delayMs: 60 });
		const result = await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		expect(result.trace[0].model_ms).toBeGreaterThanOrEqual(50);
		expect(result.trace[0].elapsed_ms).toBeGreaterThanOrEqual(result.trace[0].model_ms);
	});

	it('runs a tool, feeds the observation back and keeps the model reply as an assistant message', async () => {
		server().setScript([
			action('json_transform', {
				data: { items: [{ n: 1 }, { n: 2 }] },
				expression: 'length(items)',
			}),
			final('There are 2 items.'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'Count the items',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].action).toEqual({
			tool: 'json_transform',
			args: { data: { items: [{ n: 1 }, { n: 2 }] }, expression: 'length(items)' },
		});
		expect(result.trace[0].observation).toBe('2');
		expect(result.used_tools.json_transform.count).toBe(1);
		const second = server().requests[1].messages;
		expect(second[second.length - 2]).toEqual({
			role: 'assistant',
			content: action('json_transform', {
				data: { items: [{ n: 1 }, { n: 2 }] },
				expression: 'length(items)',
			}),
		});
		expect(second[second.length - 1]).toEqual({
			role: 'user',
			content: observationMessage('json_transform', '2'),
		});
	});

	it('sends the protocol and the whitelisted tools with their schemas in the system prompt, examples only when asked for', async () => {
		server().setScript([final('ok'), final('ok')]);
		await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'hi',
			developerText: 'Answer in German.',
		});
		const system = server().requests[0].messages[0];
		expect(system.role).toBe('system');
		expect(system.content).toContain('{"type":"action","tool":"<name>","args":{...}}');
		expect(system.content).toContain('{"type":"final","answer":"..."}');
		expect(system.content).toContain('json_transform');
		expect(system.content).toContain('"expression"');
		expect(system.content).not.toContain('http_request');
		// The prompt leaves out additionalProperties: false to save tokens; validation still refuses extras.
		expect(system.content).not.toContain('additionalProperties');
		expect(system.content).not.toContain('Examples');
		expect(system.content).toContain('Answer in German.');

		await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, prompt_examples: 'always' },
			prompt: 'hi',
		});
		expect(server().requests[1].messages[0].content).toContain(
			'Examples (format only; "lookup_order" is not a real tool)',
		);
		// Without tools the rules offer the final object only.
		expect(server().requests[1].messages[0].content).toMatch(
			/^Reply with one JSON object: \{"type":"final","answer":"..."\}\. There are no tools\./,
		);
	});

	it('refuses an argument the schema does not allow, though the prompt leaves additionalProperties out', async () => {
		server().setScript([
			action('json_transform', { data: 1, expression: '@', extra: true }),
			final('gave up'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.trace[0].error?.message).toContain('unknown property "extra" is not allowed');
		expect(result.used_tools).toEqual({});
	});

	it('shows the examples with the repair turn after a protocol error, once, and not after a failed tool call', async () => {
		server().setScript([
			'Sure! {"type":"final","answer":"x"}',
			action('json_transform', { data: 1, expression: '@' }),
			action('json_transform', { data: 1 }),
			final('fixed'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		const afterProtocolError = lastUserMessage(server(), 1);
		expect(afterProtocolError).toContain('text before the JSON object');
		expect(afterProtocolError).toContain(
			'{"type":"action","tool":"lookup_order","args":{"id":"123"}}',
		);
		expect(afterProtocolError).toContain('This is your one repair turn');
		const afterBadArgs = lastUserMessage(server(), 3);
		expect(afterBadArgs).toContain('missing required property "expression"');
		expect(afterBadArgs).not.toContain('lookup_order');
	});

	it('does not repeat the examples in the repair turn when every call already carries them', async () => {
		server().setScript(['not json', final('fixed')]);
		await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, prompt_examples: 'always' },
			prompt: 'q',
		});
		expect(lastUserMessage(server(), 1)).not.toContain('lookup_order');
		expect(lastUserMessage(server(), 1)).toContain('This is your one repair turn');
	});

	it('gives one repair turn after a protocol error, with the precise error, then accepts the fix', async () => {
		server().setScript(['Sure! {"type":"final","answer":"x"}', final('fixed')]);
		const result = await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('fixed');
		expect(result.trace[0].error).toMatchObject({ type: 'parse_error' });
		expect(result.trace[0].reply_excerpt).toContain('Sure!');
		expect(result.trace[1].repair).toBe(true);
		expect(lastUserMessage(server(), 1)).toContain('text before the JSON object');
	});

	it('ends with parse_error after a second protocol failure in a row', async () => {
		server().setScript(['not json', '{"type":"final"}', final('never asked')]);
		const result = await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		expect(result.finish_reason).toBe('parse_error');
		expect(result.final_answer).toBe('');
		expect(result.trace).toHaveLength(2);
		expect(server().requests).toHaveLength(2);
		expect(result.messages).toEqual([{ role: 'user', content: 'q' }]);
	});

	it('refuses a tool outside the whitelist without running it, then ends with tool_error on a second refusal', async () => {
		const probe = probeTool();
		server().setScript([action('probe', { value: 1 }), action('probe', { value: 2 })]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(probe.calls).toHaveLength(0);
		expect(result.finish_reason).toBe('tool_error');
		expect(result.trace[0].error).toMatchObject({ type: 'tool_not_allowed' });
		expect(lastUserMessage(server(), 1)).toContain(
			'tool "probe" is not available. Available tools: json_transform.',
		);
	});

	it('rejects schema-invalid args with path and problem, without running the tool', async () => {
		const probe = probeTool();
		server().setScript([
			action('probe', { value: 'ten', extra: true }),
			action('probe', { value: 10 }),
			final('done'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(probe.calls).toEqual([{ value: 10 }]);
		expect(result.trace[0].error?.type).toBe('invalid_args');
		const feedback = lastUserMessage(server(), 1);
		expect(feedback).toContain('args.value: must be integer');
		expect(feedback).toContain('args: unknown property "extra" is not allowed');
	});

	it('turns a throwing tool into an observation for the model and lets it recover', async () => {
		const probe = probeTool('probe', async () => {
			throw new Error('upstream said 503');
		});
		server().setScript([action('probe', { value: 1 }), final('gave up politely')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].error).toEqual({
			type: 'tool_error',
			message: 'probe failed: upstream said 503',
		});
		expect(result.used_tools.probe.count).toBe(1);
		expect(lastUserMessage(server(), 1)).toContain('probe failed: upstream said 503');
	});

	it('times out a tool that ignores its signal after single_call_timeout, and the run goes on', async () => {
		const probe = probeTool('probe', () => new Promise(() => undefined));
		server().setScript([action('probe', { value: 1 }), final('after timeout')]);
		const started = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['probe'], single_call_timeout: 0.3 },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].error?.type).toBe('tool_timeout');
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it('stops at max_steps when the model never finishes', async () => {
		server().setScript((request) =>
			action('json_transform', { data: request.callIndex, expression: '@' }),
		);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, max_steps: 3, allowed_tools: ['json_transform'] },
			prompt: 'loop',
		});
		expect(result.finish_reason).toBe('max_steps');
		expect(result.trace).toHaveLength(3);
		expect(result.stop_detail).toContain('max_steps (3)');
	});

	it('stops at max_tool_calls before running one call too many', async () => {
		const probe = probeTool();
		server().setScript([action('probe', { value: 1 }), action('probe', { value: 2 })]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, max_tool_calls: 1, allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('max_tool_calls');
		expect(probe.calls).toEqual([{ value: 1 }]);
		expect(result.trace[1].error?.type).toBe('limit');
	});

	it('cuts observations to observation_max_len with a visible marker', async () => {
		server().setScript([
			action('json_transform', { data: 'x'.repeat(500), expression: '@' }),
			final('ok'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, observation_max_len: 40, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.trace[0].observation).toBe(`${'x'.repeat(40)}… [cut 460 of 500 characters]`);
		expect(lastUserMessage(server(), 1)).toContain('[cut 460 of 500 characters]');
	});

	it('sums token usage over all model calls as reported', async () => {
		server().setScript([
			{
				text: action('json_transform', { data: 1, expression: '@' }),
				usage: { prompt_tokens: 100, completion_tokens: 10 },
			},
			{ text: final('ok'), usage: { prompt_tokens: 130, completion_tokens: 5 } },
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.usage).toEqual({ prompt_tokens: 230, completion_tokens: 15, total_tokens: 245 });
		expect(result.trace[1].usage).toEqual({
			prompt_tokens: 130,
			completion_tokens: 5,
			total_tokens: 135,
		});
	});

	it('stops with token_budget before a model call once usage reached the budget', async () => {
		server().setScript([
			{
				text: action('json_transform', { data: 1, expression: '@' }),
				usage: { prompt_tokens: 90, completion_tokens: 20 },
			},
			final('never asked'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, total_token_budget: 100, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('token_budget');
		expect(server().requests).toHaveLength(1);
		expect(result.used_tools.json_transform.count).toBe(1);
	});

	it('ends with llm_error when the provider still fails after retries', async () => {
		server().setScript({ status: 500, errorMessage: 'backend exploded' });
		const result = await runAgent({
			model: modelFor(server(), 'openai', 1),
			config: baseConfig,
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('llm_error');
		expect(result.trace[0].error?.message).toContain('backend exploded');
		expect(server().requests).toHaveLength(2);
	});

	it('rides out a 429 through the SDK retry', async () => {
		server().setScript([
			{ status: 429, errorMessage: 'slow down', headers: { 'retry-after-ms': '10' } },
			final('after retry'),
		]);
		const result = await runAgent({
			model: modelFor(server(), 'openai', 2),
			config: baseConfig,
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('after retry');
	});

	it('ends with timeout when one model call exceeds single_call_timeout', async () => {
		server().setScript({ text: final('too late'), delayMs: 2000 });
		const started = Date.now();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, single_call_timeout: 0.2 },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('timeout');
		expect(result.trace[0].error?.message).toContain('single_call_timeout');
		expect(Date.now() - started).toBeLessThan(1500);
	});

	it('ends with timeout when the whole run exceeds timeout', async () => {
		server().setScript((request) => ({
			text: action('json_transform', { data: request.callIndex, expression: '@' }),
			delayMs: 150,
		}));
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, timeout: 0.4, max_steps: 50, allowed_tools: ['json_transform'] },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('timeout');
		expect(result.stop_detail).toContain('timeout (0.4 s)');
		expect(result.elapsed_ms).toBeLessThan(1500);
	});

	it('ends with cancelled when the caller aborts', async () => {
		server().setScript({ text: final('too late'), delayMs: 2000 });
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 100);
		const result = await runAgent({
			model: modelFor(server()),
			config: baseConfig,
			prompt: 'q',
			signal: controller.signal,
		});
		expect(result.finish_reason).toBe('cancelled');
	});

	it('never executes an action written inside a <think> block', async () => {
		const probe = probeTool();
		server().setScript(
			'<think>{"type":"action","tool":"probe","args":{"value":1}}</think>{"type":"final","answer":"thought only"}',
		);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, allowed_tools: ['probe'] },
			extraTools: [probe.tool],
			prompt: 'q',
		});
		expect(result.final_answer).toBe('thought only');
		expect(probe.calls).toHaveLength(0);
		expect(result.trace[0].reasoning).toContain('"tool":"probe"');
	});
});

describe('runAgent: JSON output mode', () => {
	const server = useScriptedServer();

	it('asks for json_object by default, json_schema on request, and nothing when off', async () => {
		server().setScript(final('ok'));
		await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, json_mode: 'json_schema' },
			prompt: 'q',
		});
		await runAgent({
			model: modelFor(server()),
			config: { ...baseConfig, json_mode: 'off' },
			prompt: 'q',
		});
		const formats = server().requests.map((request) => request.body.response_format);
		expect(formats[0]).toEqual({ type: 'json_object' });
		expect(formats[1]).toMatchObject({ type: 'json_schema', json_schema: { name: 'agent_turn' } });
		expect(formats[2]).toBeUndefined();
	});
});

describe('runAgent: an OpenAI-compatible endpoint without JSON mode', () => {
	const server = useScriptedServer({ rejectResponseFormat: true });

	it('retries once without response_format and says so in the trace', async () => {
		server().setScript(final('plain mode works'));
		const result = await runAgent({ model: modelFor(server()), config: baseConfig, prompt: 'q' });
		expect(result.finish_reason).toBe('final');
		expect(result.trace[0].notices?.[0]).toContain('retried without JSON mode');
	});
});

describe('runAgent: Gemini through @google/genai', () => {
	const server = useScriptedServer();

	it('runs a tool round trip with system instruction, JSON mime type and usage', async () => {
		server().setScript([
			{
				text: action('json_transform', { data: [3, 1, 2], expression: 'sort(@)' }),
				usage: { prompt_tokens: 50, completion_tokens: 7 },
			},
			{ text: final('1, 2, 3'), usage: { prompt_tokens: 70, completion_tokens: 4 } },
		]);
		const result = await runAgent({
			model: modelFor(server(), 'gemini'),
			config: { ...baseConfig, allowed_tools: ['json_transform'] },
			prompt: 'sort',
		});
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('1, 2, 3');
		expect(result.trace[0].observation).toBe('[1,2,3]');
		expect(result.usage).toEqual({ prompt_tokens: 120, completion_tokens: 11, total_tokens: 131 });
		expect(result.provider).toBe('gemini');
		const body = server().requests[1].body;
		expect(body.generationConfig?.responseMimeType).toBe('application/json');
		expect(server().requests[1].messages[0].role).toBe('system');
		expect(
			server()
				.requests[1].messages.slice(-2)
				.map((message) => message.role),
		).toEqual(['assistant', 'user']);
	});

	it('ends with llm_error on a Gemini 500', async () => {
		server().setScript({ status: 500, errorMessage: 'gemini is down' });
		const result = await runAgent({
			model: modelFor(server(), 'gemini'),
			config: baseConfig,
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('llm_error');
	});
});
