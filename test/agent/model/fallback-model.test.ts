import { observationMessage } from '../../../src/agent/protocol/prompt';
import { runAgent } from '../../../src/agent/run-agent';
import type { ScriptedServer } from '../../../src/demo/scripted-server';
import { createChatModel } from '../../../src/providers/create-model';
import { action, final, probeTool, startsScriptedServers } from '../../support/agent';

/**
 * A fallback model takes over mid-run: the primary (OpenAI wire format, real `openai` SDK, its own retries
 * on) fails after the first step, the fallback (Gemini wire format, real `@google/genai` SDK) answers the
 * same step with the same conversation, and the tool that already ran is never run again.
 */
describe('a fallback model continues the run where the primary failed', () => {
	const startServer = startsScriptedServers();
	let primaryServer: ScriptedServer;
	let fallbackServer: ScriptedServer;
	beforeEach(async () => {
		primaryServer = await startServer();
		fallbackServer = await startServer();
	});

	const primary = (maxRetries = 1) =>
		createChatModel({
			provider: 'openai',
			apiKey: 'primary-key-123456',
			baseUrl: primaryServer.openaiBaseUrl,
			maxRetries,
			maxConcurrentCalls: 8,
		});
	const fallback = () =>
		createChatModel({
			provider: 'gemini',
			apiKey: 'fallback-key-654321',
			baseUrl: fallbackServer.geminiBaseUrl,
			maxRetries: 0,
			model: 'gemini-2.5-flash',
			maxConcurrentCalls: 8,
		});

	it('moves to the fallback after the primary answers 500 through its retries, running the tool exactly once', async () => {
		primaryServer.setScript([
			action('probe', { value: 1 }),
			{ status: 500, errorMessage: 'The server had an error' },
			{ status: 500, errorMessage: 'The server had an error' },
		]);
		fallbackServer.setScript([final('done by the fallback')]);
		const probe = probeTool();
		const result = await runAgent({
			model: primary(),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini', allowed_tools: ['probe'] },
			prompt: 'use the probe',
			extraTools: [probe.tool],
		});

		expect(result.finish_reason).toBe('final');
		expect(result.final_answer).toBe('done by the fallback');
		expect(probe.calls).toEqual([{ value: 1 }]);
		// One call, then the first attempt and one retry of step 2.
		expect(primaryServer.requests).toHaveLength(3);
		expect(fallbackServer.requests).toHaveLength(1);
		expect(result.trace.map((step) => [step.step, step.provider, step.model])).toEqual([
			[1, 'openai', 'gpt-4o-mini'],
			[2, 'gemini', 'gemini-2.5-flash'],
		]);
		expect(result.trace[1].notices?.[0]).toMatch(
			/^openai gpt-4o-mini failed \(model call failed: 500 The server had an error\); the fallback gemini gemini-2\.5-flash answers from this step on$/,
		);
		expect(result).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-flash' });
	});

	it('hands the fallback the very conversation the primary had, observation included', async () => {
		primaryServer.setScript([
			action('probe', { value: 7 }),
			{ status: 503, errorMessage: 'overloaded' },
		]);
		fallbackServer.setScript([final('ok')]);
		const probe = probeTool();
		await runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini', allowed_tools: ['probe'] },
			prompt: 'q',
			extraTools: [probe.tool],
		});

		const primarySaw = primaryServer.requests[1].messages;
		const fallbackSaw = fallbackServer.requests[0].messages;
		expect(fallbackSaw.map((message) => message.content)).toEqual(
			primarySaw.map((message) => message.content),
		);
		expect(fallbackSaw[fallbackSaw.length - 1].content).toBe(
			observationMessage('probe', '{"echoed":{"value":7}}'),
		);
	});

	it('moves to the fallback when a primary call runs out of single_call_timeout', async () => {
		primaryServer.setScript([{ delayMs: 60_000, text: final('too late') }]);
		fallbackServer.setScript([final('in time')]);
		const result = await runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini', single_call_timeout: 1 },
			prompt: 'q',
		});
		expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'in time' });
		expect(result.trace[0].notices?.[0]).toMatch(
			/^openai gpt-4o-mini failed \(model call: no answer within single_call_timeout \(1 s\)\)/,
		);
	});

	it("ends llm_error with the fallback's error when the fallback fails too, and fails over only once", async () => {
		primaryServer.setScript({ status: 500, errorMessage: 'primary down' });
		fallbackServer.setScript({ status: 500, errorMessage: 'fallback down' });
		const result = await runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('llm_error');
		expect(result.trace).toHaveLength(1);
		expect(result.trace[0].error?.message).toContain('fallback down');
		expect(result.trace[0].notices?.[0]).toContain('primary down');
		expect(primaryServer.requests).toHaveLength(1);
		expect(fallbackServer.requests).toHaveLength(1);
	});

	it('does not fail over on a protocol error or a cancelled run: neither is the model failing', async () => {
		primaryServer.setScript(['not json', 'still not json']);
		const result = await runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
		});
		expect(result.finish_reason).toBe('parse_error');
		expect(fallbackServer.requests).toHaveLength(0);

		primaryServer.setScript({ delayMs: 60_000, text: final('never') });
		const controller = new AbortController();
		const running = runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
			signal: controller.signal,
		});
		setTimeout(() => controller.abort(), 200);
		expect((await running).finish_reason).toBe('cancelled');
		expect(fallbackServer.requests).toHaveLength(0);
	});

	it('keeps both API keys out of the result', async () => {
		primaryServer.setScript({
			status: 401,
			errorMessage: 'Incorrect API key provided: primary-key-123456',
		});
		fallbackServer.setScript([final('fallback-key-654321 is mine')]);
		const result = await runAgent({
			model: primary(0),
			fallbackModel: fallback(),
			config: { model: 'gpt-4o-mini' },
			prompt: 'q',
		});
		const text = JSON.stringify(result);
		expect(text).not.toContain('primary-key-123456');
		expect(text).not.toContain('fallback-key-654321');
	});
});
