import { runAgent } from '../../../src/agent/run-agent';
import type { ScriptedReply } from '../../../src/demo/scripted-server';
import {
	action,
	final,
	lastUserMessage,
	modelFor,
	probeTool,
	useScriptedServer,
} from '../../support/agent';

/** Issue #13 §1: GPT-5-family and Gemini models as they behave on the wire (provider-behaviours.md §1–2). */

/** Where each SDK puts the sampling settings in the request body. */
const settingsOf = (provider: 'openai' | 'gemini', body: any) =>
	provider === 'openai' ? body : (body.generationConfig ?? {});

describe.each(['openai', 'gemini'] as const)(
	"today's models through the real %s SDK",
	(provider) => {
		const server = useScriptedServer({ reasoningModel: true });

		it('a config with only model and allowed_tools runs to final against a model that refuses any temperature but its default', async () => {
			server().setScript([
				action('json_transform', { data: [1, 2], expression: 'length(@)' }),
				final('two'),
			]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5-mini', allowed_tools: ['json_transform'] },
				prompt: 'count',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'two' });
			for (const request of server().requests)
				expect(settingsOf(provider, request.body).temperature).toBeUndefined();
		});

		it('a user-set temperature that the endpoint refuses is dropped once, with a notice, and the call retried', async () => {
			server().setScript([final('fine')]);
			const model = modelFor(server(), provider);
			const result = await runAgent({
				model,
				config: { model: 'gpt-5', temperature: 0.2 },
				prompt: 'q',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'fine' });
			expect(result.trace[0].notices?.join(' ')).toMatch(
				/rejected temperature .*retried without temperature/,
			);
			expect(
				server().requests.map((request) => settingsOf(provider, request.body).temperature),
			).toEqual([0.2, undefined]);
		});

		it("sends max_output_tokens and reasoning_effort under the provider's own names, never max_tokens", async () => {
			server().setScript([final('ok')]);
			await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5', max_output_tokens: 300, reasoning_effort: 'low' },
				prompt: 'q',
			});
			const body = server().requests[0].body;
			if (provider === 'openai') {
				expect(body).toMatchObject({ max_completion_tokens: 300, reasoning_effort: 'low' });
				expect(body.max_tokens).toBeUndefined();
			} else {
				expect(body.generationConfig).toMatchObject({
					maxOutputTokens: 300,
					thinkingConfig: { thinkingBudget: 1024 },
				});
			}
		});

		it('reports reasoning tokens in usage', async () => {
			server().setScript([
				{
					text: final('ok'),
					usage: { prompt_tokens: 50, completion_tokens: 30 },
					reasoningTokens: 20,
				},
			]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5' },
				prompt: 'q',
			});
			expect(result.usage.reasoning_tokens).toBe(20);
			expect(result.trace[0].usage?.reasoning_tokens).toBe(20);
		});
	},
);

describe.each(['openai', 'gemini'] as const)(
	'cut and filtered replies through the real %s SDK',
	(provider) => {
		const server = useScriptedServer();
		// The budget spent on reasoning: HTTP 200, no text, finish "length" (provider-behaviours.md §1.5 [I-empty], §2 [GG-rec-think]).
		const cut: ScriptedReply = {
			text: provider === 'openai' ? '' : '',
			finishReason: provider === 'openai' ? 'length' : 'MAX_TOKENS',
			usage: { prompt_tokens: 40, completion_tokens: 0 },
			reasoningTokens: 400,
		};
		const halfJson: ScriptedReply = {
			text: '{"type":"final","answer":"The first part of a long ans',
			finishReason: provider === 'openai' ? 'length' : 'MAX_TOKENS',
		};

		it('a reply cut at the output limit gets a repair turn that says so, then the run goes on', async () => {
			server().setScript([cut, final('short answer')]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5', max_output_tokens: 400 },
				prompt: 'q',
			});
			expect(result).toMatchObject({ finish_reason: 'final', final_answer: 'short answer' });
			expect(result.trace[0].error?.type).toBe('output_limit');
			expect(lastUserMessage(server(), 1)).toMatch(
				/cut off at the output-token limit \(max_output_tokens is 400\).*Answer shorter/,
			);
		});

		it('two cut replies in a row end the run with max_output_tokens', async () => {
			server().setScript([halfJson, cut]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5' },
				prompt: 'q',
			});
			expect(result.finish_reason).toBe('max_output_tokens');
			expect(result.trace.map((step) => step.error?.type)).toEqual([
				'output_limit',
				'output_limit',
			]);
		});

		it('a cut reply after a plain protocol error ends parse_error, as any second failure does', async () => {
			server().setScript(['not json', halfJson]);
			const result = await runAgent({
				model: modelFor(server(), provider),
				config: { model: 'gpt-5' },
				prompt: 'q',
			});
			expect(result.finish_reason).toBe('parse_error');
		});

		const filtered: Array<[string, ScriptedReply]> =
			provider === 'openai'
				? [
						[
							'finish_reason content_filter with no text',
							{ text: '', finishReason: 'content_filter' },
						],
						['a refusal instead of content', { refusal: "I'm sorry, I can't help with that." }],
					]
				: [
						['finishReason SAFETY with no parts', { text: '', finishReason: 'SAFETY' }],
						['finishReason RECITATION with no parts', { text: '', finishReason: 'RECITATION' }],
						['a blocked prompt (no candidates)', { promptBlocked: 'SAFETY' }],
					];

		it.each(filtered)(
			'%s ends the run content_filter, without a repair loop',
			async (_label, reply) => {
				server().setScript([reply, final('never asked')]);
				const { tool, calls } = probeTool();
				const result = await runAgent({
					model: modelFor(server(), provider),
					config: { model: 'gpt-5', allowed_tools: ['probe'] },
					prompt: 'q',
					extraTools: [tool],
				});
				expect(result.finish_reason).toBe('content_filter');
				expect(result.trace[0].error?.type).toBe('content_filter');
				expect(server().requests).toHaveLength(1);
				expect(calls).toHaveLength(0);
			},
		);
	},
);
