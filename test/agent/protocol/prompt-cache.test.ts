// The prompt caches: its stable part comes first, byte-identical across steps and runs, with a cache key from its hash.
import { buildSystemPrompt } from '../../../src/agent/protocol/prompt';
import { runAgent } from '../../../src/agent/run-agent';
import { createChatModel } from '../../../src/providers/create-model';
import { promptCacheKey } from '../../../src/providers/openai';
import type { Tool } from '../../../src/tools/tool';
import { action, final, modelFor, probeTool, useScriptedServer } from '../../support/agent';
import { sendJson, startServer, useLoopbackGuard } from '../../support/servers/http-servers';

const stablePart = (system: string) => system.slice(0, system.indexOf('\n\n'));

describe('a prompt that caches', () => {
	useLoopbackGuard();
	const server = useScriptedServer();

	async function runOnce(prompt: string, tools: Tool[], developerText: string) {
		server().setScript([action('probe', { value: 1 }), final('done')]);
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'scripted-model', allowed_tools: tools.map((tool) => tool.name) },
			extraTools: tools,
			developerText,
			prompt,
		});
		expect(result.finish_reason).toBe('final');
	}

	it('sends the same system message and prompt_cache_key at every step and in every run of one configuration', async () => {
		const tools = [probeTool('probe').tool, probeTool('lookup').tool];
		await runOnce('first question', tools, 'Be terse.');
		await new Promise((resolve) => setTimeout(resolve, 5)); // a later run: nothing in the prompt may depend on when
		await runOnce('second question', tools, 'Be terse.');
		const requests = server().requests;
		expect(requests).toHaveLength(4);
		const systems = requests.map((request) => request.messages[0]);
		expect(
			systems.every(
				(message) => message.role === 'system' && message.content === systems[0].content,
			),
		).toBe(true);
		const keys = requests.map(
			(request) => (request.body as { prompt_cache_key?: unknown }).prompt_cache_key,
		);
		expect(keys[0]).toMatch(/^agent-core-[0-9a-f]{32}$/);
		expect(new Set(keys)).toEqual(new Set([keys[0]]));
		// The conversation only grows after it: step 2 starts with step 1's messages, byte for byte.
		expect(requests[1].messages.slice(0, 2)).toEqual(requests[0].messages);
	});

	it('keeps the stable part and its key when the workflow text changes per run or the tools come in another order', async () => {
		const [probe, lookup] = [probeTool('probe').tool, probeTool('lookup').tool];
		await runOnce('q', [probe, lookup], 'Today is 2026-11-25T12:00:00Z.');
		await runOnce('q', [lookup, probe], 'Today is 2026-11-26T08:30:00Z.');
		const [first, , second] = server().requests;
		expect(first.messages[0].content).not.toBe(second.messages[0].content);
		expect(stablePart(first.messages[0].content)).toBe(stablePart(second.messages[0].content));
		expect(stablePart(first.messages[0].content)).toMatch(
			/^Reply with one JSON object: .*\n- lookup: .*\n {2}args: .*\n- probe: .*\n {2}args: .*$/,
		);
		expect((first.body as { prompt_cache_key?: string }).prompt_cache_key).toBe(
			(second.body as { prompt_cache_key?: string }).prompt_cache_key,
		);
	});

	it('gives another configuration another key', () => {
		const system = (tools: Tool[]) => [
			{ role: 'system' as const, content: buildSystemPrompt(tools, 'Be terse.') },
		];
		expect(promptCacheKey(system([probeTool('probe').tool]))).not.toBe(
			promptCacheKey(system([probeTool('lookup').tool])),
		);
		expect(promptCacheKey([{ role: 'user', content: 'no system message' }])).toBeUndefined();
	});

	it('keeps the stable part one paragraph even when a tool description has blank lines', () => {
		const tool = {
			...probeTool('probe').tool,
			description: 'First paragraph.\n\n\nSecond paragraph.',
		};
		const system = buildSystemPrompt([tool], 'Per-run text.');
		expect(stablePart(system)).toContain('- probe: First paragraph.\nSecond paragraph.\n  args: ');
		expect(system.endsWith('\n\nPer-run text.')).toBe(true);
	});

	it('calls an endpoint that refuses prompt_cache_key again without it, says so once, and leaves it out afterwards', async () => {
		const completion = (content: string) => ({
			id: 'c',
			object: 'chat.completion',
			created: 0,
			model: 'm',
			choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
			usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
		});
		// Worded as strict OpenAI-compatible servers word an unknown field (a 400 naming the parameter).
		const strict = await startServer((request, response) => {
			const body = JSON.parse(request.body) as { prompt_cache_key?: string };
			if (body.prompt_cache_key !== undefined) {
				sendJson(
					response,
					{
						error: {
							message: "property 'prompt_cache_key' is unsupported",
							type: 'invalid_request_error',
							param: 'prompt_cache_key',
						},
					},
					400,
				);
				return;
			}
			sendJson(response, completion(final('ok')));
		});
		const model = createChatModel({
			provider: 'openai',
			apiKey: 'k',
			baseUrl: `${strict.url}/v1`,
			maxRetries: 0,
			maxConcurrentCalls: 4,
		});
		const first = await runAgent({ model, config: { model: 'm' }, prompt: 'q' });
		const second = await runAgent({ model, config: { model: 'm' }, prompt: 'q' });
		expect(first).toMatchObject({ finish_reason: 'final', final_answer: 'ok' });
		expect(first.trace[0].notices).toEqual([
			expect.stringMatching(
				/^the endpoint rejected prompt_cache_key \(400 .*\); retried without prompt_cache_key/,
			),
		]);
		expect(second).toMatchObject({ finish_reason: 'final', final_answer: 'ok' });
		expect(second.trace[0].notices).toBeUndefined();
		const sent = strict.requests.map((request) => 'prompt_cache_key' in JSON.parse(request.body));
		expect(sent).toEqual([true, false, false]);
	});
});
