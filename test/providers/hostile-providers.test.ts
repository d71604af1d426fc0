import { runAgent } from '../../src/agent/run-agent';
import { ConfigError } from '../../src/settings/config';
import { MAX_NESTING_DEPTH } from '../../src/agent/protocol/protocol';
import { createChatModel } from '../../src/providers/create-model';
import { MAX_TOKENS_PER_CALL } from '../../src/core/usage';
import type { Tool } from '../../src/tools/tool';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../support/agent';
import { useEventLoopWatchdog } from '../support/watchdog';

/**
 * Hostile provider replies and inputs (issue #12): each ends within its limits with a named outcome,
 * leaks nothing, and leaves the event loop free.
 */
const config = { model: 'scripted-model', max_steps: 4 };

/** An action reply whose args nest `depth` objects (built as text: JSON.stringify itself would overflow). */
function nestedAction(depth: number): string {
	return `{"type":"action","tool":"probe","args":{"value":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
}

describe.each(['openai', 'gemini'] as const)(
	'hostile provider replies through the real %s SDK',
	(provider) => {
		const server = useScriptedServer();
		useEventLoopWatchdog(`providers/${provider}`);

		it('a Retry-After of 50 s does not outlive single_call_timeout: the run ends at once and no retry is sent', async () => {
			server().setScript({
				status: 503,
				errorMessage: 'overloaded',
				headers: { 'retry-after': '50' },
			});
			const started = Date.now();
			const result = await runAgent({
				model: modelFor(server(), provider, 2),
				config: { ...config, single_call_timeout: 1, timeout: 2 },
				prompt: 'q',
			});
			// openai-node exposes the header: a wait past the call's deadline is not begun, and the 503 says so (issue #27).
			// @google/genai exposes no headers: its backoff is cut by the deadline.
			if (provider === 'openai')
				expect(result).toMatchObject({
					finish_reason: 'llm_error',
					stop_detail: expect.stringContaining("after this call's deadline"),
				});
			else expect(result.finish_reason).toBe('timeout');
			expect(Date.now() - started).toBeLessThan(10_000);
			// Give a stray retry the chance to show itself.
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(server().requests.length).toBeLessThanOrEqual(provider === 'openai' ? 1 : 2);
		});

		it('retries a 503 after the backoff and answers', async () => {
			server().setScript([
				{ status: 503, errorMessage: 'overloaded', headers: { 'retry-after-ms': '20' } },
				final('after retry'),
			]);
			const result = await runAgent({
				model: modelFor(server(), provider, 2),
				config,
				prompt: 'q',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'after retry' });
			expect(server().requests).toHaveLength(2);
		});

		it('an HTML page on HTTP 200 ends llm_error naming what came back, not "your reply was empty"', async () => {
			server().setScript({
				rawBody: '<!doctype html><html><body>Welcome to nginx!</body></html>',
				contentType: 'text/html',
			});
			const result = await runAgent({ model: modelFor(server(), provider), config, prompt: 'q' });
			expect(result.finish_reason).toBe('llm_error');
			expect(result.trace[0].error?.message).toMatch(
				provider === 'openai' ? /without a chat completion.*nginx/ : /without a Gemini response/,
			);
			expect(server().requests).toHaveLength(1);
		});

		it('an event stream on a plain HTTP 200 ends llm_error', async () => {
			server().setScript({
				rawBody: 'data: {"choices":[]}\n\ndata: [DONE]\n\n',
				contentType: 'text/event-stream',
			});
			const result = await runAgent({ model: modelFor(server(), provider), config, prompt: 'q' });
			expect(result.finish_reason).toBe('llm_error');
			expect(result.trace[0].error?.message).not.toMatch(/empty/);
		});

		it('a native function call with no text gets a repair message saying so, then the run goes on', async () => {
			server().setScript([
				{ text: '', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
				final('Sunny'),
			]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config,
				prompt: 'Weather?',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'Sunny' });
			expect(result.trace[0].error?.message).toMatch(/native function call \("get_weather"\)/);
			expect(lastUserMessage(server(), 1)).toMatch(/does not use native function calling/);
		});

		it('broken usage (negative, text, absurd) can neither defeat nor trip the token budget', async () => {
			server().setScript([
				{
					text: action('probe', { value: 1 }),
					usage: { prompt_tokens: -1_000_000, completion_tokens: '5', total_tokens: -7 },
				},
				{
					text: action('probe', { value: 2 }),
					usage: { prompt_tokens: 1e18, completion_tokens: 10 },
				},
				final('never reached'),
			]);
			const { tool } = probeTool();
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { ...config, allowed_tools: ['probe'], total_token_budget: 1000 },
				prompt: 'q',
				extraTools: [tool],
			});
			expect(result.trace[0].usage).toEqual({
				prompt_tokens: 0,
				completion_tokens: 0,
				total_tokens: 0,
			});
			expect(result.trace[1].usage?.prompt_tokens).toBe(MAX_TOKENS_PER_CALL);
			expect(result.finish_reason).toBe('token_budget');
			expect(result.usage.total_tokens).toBe(MAX_TOKENS_PER_CALL + 10);
		});

		it(`arguments nested 5,000 levels deep are a protocol error (limit ${MAX_NESTING_DEPTH}), and the output still serialises`, async () => {
			server().setScript([nestedAction(5000), final('flat now')]);
			const { tool, calls } = probeTool();
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { ...config, allowed_tools: ['probe'] },
				prompt: 'q',
				extraTools: [tool],
			});
			expect(result.finish_reason).toBe('final');
			expect(calls).toHaveLength(0);
			expect(result.trace[0].error).toMatchObject({ type: 'parse_error' });
			expect(result.trace[0].error?.message).toMatch(/more than 64 levels deep/);
			expect(() => JSON.stringify(result)).not.toThrow();
			expect(result.trace[0].reply_excerpt!.length).toBeLessThanOrEqual(500);
		});

		it('redacts the API key the model object carries without being handed secrets, even in a tool observation', async () => {
			const apiKey = 'provider-key-9f8e7d6c5b4a';
			const leaky: Tool = {
				name: 'leaky',
				description: 'leaks',
				parameters: { type: 'object' },
				execute: async () => `the key is ${apiKey}`,
			};
			server().setScript([action('leaky', {}), final(`done with ${apiKey}`)]);
			const model = createChatModel({
				provider,
				apiKey,
				baseUrl: provider === 'gemini' ? server().geminiBaseUrl : server().openaiBaseUrl,
				maxRetries: 0,
			});
			const result = await runAgent({
				model,
				config: { ...config, allowed_tools: ['leaky'] },
				prompt: 'q',
				extraTools: [leaky],
			});
			expect(JSON.stringify(result)).not.toContain(apiKey);
			// The model never saw it either: the observation was redacted before it was fed back.
			expect(lastUserMessage(server(), 1)).not.toContain(apiKey);
		});

		it('a secret straddling the observation cut leaks none of its first characters', async () => {
			const apiKey = 'straddling-secret-0123456789';
			const padding = 'x'.repeat(90);
			const tool: Tool = {
				name: 'echo',
				description: 'echo',
				parameters: { type: 'object' },
				execute: async () => `${padding}${apiKey}${padding}`,
			};
			server().setScript([action('echo', {}), final('ok')]);
			const model = createChatModel({
				provider,
				apiKey,
				baseUrl: provider === 'gemini' ? server().geminiBaseUrl : server().openaiBaseUrl,
				maxRetries: 0,
			});
			const result = await runAgent({
				model,
				config: { ...config, allowed_tools: ['echo'], observation_max_len: 100 },
				prompt: 'q',
				extraTools: [tool],
			});
			const seen = `${JSON.stringify(result)}\n${lastUserMessage(server(), 1)}`;
			expect(seen).not.toContain(apiKey.slice(0, 6));
		});
	},
);

describe('hostile configuration, arguments and answers', () => {
	const server = useScriptedServer();
	useEventLoopWatchdog('arguments and answers');

	it('a JMESPath expression that would run for days ends at single_call_timeout without stalling the event loop', async () => {
		const side = (name: string) => `${name}${'|[@,@]'.repeat(40)}`;
		server().setScript([
			action('json_transform', {
				data: { a: [1], b: [1] },
				expression: `[${side('a')}, ${side('b')}] | @[0] == @[1]`,
			}),
			final('gave up'),
		]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...config, allowed_tools: ['json_transform'], single_call_timeout: 1, timeout: 3 },
			prompt: 'q',
		});
		expect(result.trace[0].error?.type).toBe('tool_timeout');
		expect(result.finish_reason).toBe('final');
	});

	it('a final answer of "-eyJ" × 45,000 (180 KB) is redacted without stalling the event loop', async () => {
		const answer = '-eyJ'.repeat(45_000);
		server().setScript(final(answer));
		const result = await runAgent({ model: modelFor(server()), config, prompt: 'q' });
		expect(result.finish_reason).toBe('final');
		expect(result.final_answer === answer).toBe(true);
	});

	it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
		'config key %s is an unknown key like any other',
		async (key) => {
			const raw = JSON.parse(`{"model":"m",${JSON.stringify(key)}:1}`);
			const run = runAgent({ model: modelFor(server()), config: raw, prompt: 'q' });
			return expect(run).rejects.toThrow(
				new ConfigError(key, `unknown config key "${key}"`).message,
			);
		},
	);

	it('the trace shows every key the tool was sent, a __proto__ key included', async () => {
		server().setScript([
			'{"type":"action","tool":"probe","args":{"value":1,"__proto__":{"polluted":true}}}',
			final('ok'),
		]);
		const { tool, calls } = probeTool();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...config, allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [tool],
		});
		expect(JSON.stringify(result.trace[0].action)).toContain('"__proto__":{"polluted":true}');
		expect(result.trace[0].error?.message).toContain('unknown property "__proto__"');
		expect(calls).toHaveLength(0);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it('validation errors for 1,000 bad arguments are bounded: the first ten, then a count', async () => {
		const args: Record<string, unknown> = { value: 1 };
		for (let index = 0; index < 1000; index++) args[`extra_${index}_${'k'.repeat(100)}`] = index;
		server().setScript([action('probe', args as never), final('ok')]);
		const { tool } = probeTool();
		const result = await runAgent({
			model: modelFor(server()),
			config: { ...config, allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [tool],
		});
		const message = result.trace[0].error!.message;
		expect(result.trace[0].error?.type).toBe('invalid_args');
		expect(message).toContain('… and 990 more problems');
		expect(message.length).toBeLessThan(5_000);
	});
});
