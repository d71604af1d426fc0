import { AIMessageChunk } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { LangChainChatModel } from '../../../src/providers/langchain';
import type { AgentEvent } from '../../../src/agent/base/events';
import { runAgent } from '../../../src/agent/run-agent';
import { MemoryBudgetLedger } from '../../../src/budget/ledger';
import type { ChatMessage } from '../../../src/core/messages';
import type { ChatRequest } from '../../../src/providers/chat-model';
import { action, final, modelFor, probeTool, useScriptedServer } from '../../support/agent';
import { useEventLoopWatchdog } from '../../support/watchdog';

/**
 * A streaming endpoint that sends no usage (an OpenAI-compatible server that ignores `stream_options`, a
 * Gemini stream without `usageMetadata`, a LangChain model without usage metadata) must still be charged:
 * an estimate, UTF-8 bytes / 4 of every message sent (plus 4 per message) and of the reply, marked
 * `estimated: true`, counted by total_token_budget and the shared budget.
 */
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const estimateOf = (messages: ChatMessage[], reply: string) => {
	const prompt = messages.reduce(
		(total, message) => total + 4 + Math.ceil(bytes(message.content) / 4),
		0,
	);
	const completion = Math.ceil(bytes(reply) / 4);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
		estimated: true,
	};
};

describe('hostile streaming: an endpoint that streams no usage', () => {
	useEventLoopWatchdog('streaming');
	const server = useScriptedServer();

	it('an OpenAI-compatible stream without a usage chunk is charged an estimate, and total_token_budget stops the run', async () => {
		const reply = action('probe', { value: 1 });
		server().setScript([
			{ text: reply, withoutUsage: true },
			{ text: final('never asked'), withoutUsage: true },
		]);
		const probe = probeTool();
		const events: AgentEvent[] = [];
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm', allowed_tools: ['probe'], total_token_budget: 50 },
			prompt: 'Pay the invoice, please.',
			extraTools: [probe.tool],
			onEvent: (event) => events.push(event),
		});
		expect(server().requests[0].body).toMatchObject({
			stream: true,
			stream_options: { include_usage: true },
		});
		const estimate = estimateOf(server().requests[0].messages, reply);
		expect(estimate.prompt_tokens).toBeGreaterThan(50);
		expect(result.trace[0].usage).toEqual(estimate);
		expect(result.usage).toEqual(estimate);
		expect(result.finish_reason).toBe('token_budget');
		expect(result.stop_detail).toBe(
			`token usage ${estimate.total_tokens} reached total_token_budget 50`,
		);
		expect(server().requests).toHaveLength(1);
		expect(probe.calls).toEqual([{ value: 1 }]);
	});

	it('a Gemini stream without usageMetadata is charged an estimate', async () => {
		const reply = final('Sunny in Paris.');
		server().setScript({ text: reply, withoutUsage: true });
		const result = await runAgent({
			model: modelFor(server(), 'gemini'),
			config: { model: 'gemini-2.5-flash' },
			prompt: 'Weather?',
			onEvent: () => undefined,
		});
		expect(server().requests[0].streamed).toBe(true);
		expect(result.final_answer).toBe('Sunny in Paris.');
		expect(result.usage).toEqual(estimateOf(server().requests[0].messages, reply));
	});

	it('the shared budget is charged the estimate and stops the next call', async () => {
		const ledger = new MemoryBudgetLedger();
		server().setScript([
			{ text: action('probe', { value: 1 }), withoutUsage: true },
			{ text: final('never asked'), withoutUsage: true },
		]);
		const probe = probeTool();
		const result = await runAgent({
			model: modelFor(server()),
			config: {
				model: 'm',
				allowed_tools: ['probe'],
				shared_budget: { scope: 'estimated', tokens: 50, period_seconds: 3600 },
			},
			budgetLedger: ledger,
			prompt: 'q',
			extraTools: [probe.tool],
			onEvent: () => undefined,
		});
		expect(result.finish_reason).toBe('budget_exhausted');
		expect(result.usage.estimated).toBe(true);
		expect((await ledger.totals('estimated', 3600)).tokens).toBe(result.usage.total_tokens);
		expect(server().requests).toHaveLength(1);
	});

	it('a LangChain model that streams without usage metadata is charged an estimate', async () => {
		const reply = final('From a LangChain model.');
		const langChain = new FakeStreamingChatModel({
			chunks: [
				new AIMessageChunk({ content: reply.slice(0, 10) }),
				new AIMessageChunk({ content: reply.slice(10) }),
			],
		});
		const adapter = new LangChainChatModel(langChain);
		let sent: ChatMessage[] = [];
		const model = {
			provider: adapter.provider,
			generate: (request: ChatRequest) => (
				(sent = [...request.messages]),
				adapter.generate(request)
			),
		};
		const events: AgentEvent[] = [];
		const result = await runAgent({
			model,
			config: { model: 'm' },
			prompt: 'q',
			onEvent: (event) => events.push(event),
		});
		expect(result.final_answer).toBe('From a LangChain model.');
		expect(events.filter((event) => event.type === 'answer_delta').length).toBeGreaterThan(0);
		expect(result.usage).toEqual(estimateOf(sent, reply));
	});

	it('usage the endpoint reports is taken as it is, not marked estimated', async () => {
		server().setScript({ text: final('ok'), usage: { prompt_tokens: 120, completion_tokens: 3 } });
		const result = await runAgent({
			model: modelFor(server()),
			config: { model: 'm' },
			prompt: 'q',
			onEvent: () => undefined,
		});
		expect(result.usage).toEqual({ prompt_tokens: 120, completion_tokens: 3, total_tokens: 123 });
		expect(result.trace[0].usage).toEqual({
			prompt_tokens: 120,
			completion_tokens: 3,
			total_tokens: 123,
		});
	});
});
