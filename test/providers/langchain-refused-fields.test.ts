import { ChatOpenAI } from '@langchain/openai';
import { runAgent } from '../../src';
import { LangChainChatModel } from '../../src/providers/langchain';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { final, useScriptedServer } from '../support/agent';

/**
 * The LangChain adapter has the engine's own call skeleton (issue #27): a refused JSON-mode field is dropped and
 * the call made again, once, with a notice; errors read `<status> <the provider's own message>` as the engine's
 * OpenAI adapter reads them. Through @langchain/openai 1.4.4's real ChatOpenAI, as n8n 2.41.1 ships it.
 */
function chatOpenAi(server: ScriptedServer): ChatOpenAI {
	return new ChatOpenAI({
		apiKey: 'sk-refused-fields-0001',
		model: 'gpt-4o-mini',
		maxRetries: 0,
		configuration: { baseURL: server.openaiBaseUrl },
	});
}

describe('the LangChain adapter’s refused-field loop', () => {
	describe('an endpoint without structured output', () => {
		const server = useScriptedServer({ rejectJsonSchema: true });

		it('falls back from the schema to plain JSON mode once, says so in the step, and keeps that for the model’s later calls', async () => {
			server().setScript([final('one'), final('two')]);
			const model = new LangChainChatModel(chatOpenAi(server()));
			const first = await runAgent({
				model,
				config: { model: 'gpt-4o-mini', json_mode: 'json_schema' },
				prompt: 'q',
			});
			const second = await runAgent({
				model,
				config: { model: 'gpt-4o-mini', json_mode: 'json_schema' },
				prompt: 'q',
			});

			expect([first.final_answer, second.final_answer]).toEqual(['one', 'two']);
			expect(server().requests.map((request) => request.body.response_format?.type)).toEqual([
				'json_schema',
				'json_object',
				'json_object',
			]);
			expect(first.trace[0].notices?.join(' ')).toMatch(
				/rejected json_schema .*retried without the output schema/,
			);
			expect(second.trace[0].notices).toBeUndefined();
		});
	});

	describe('an endpoint without JSON mode', () => {
		const server = useScriptedServer({ rejectResponseFormat: true });

		it('drops response_format after the 400 and gets the answer by the text protocol', async () => {
			server().setScript([final('plain')]);
			const result = await runAgent({
				model: new LangChainChatModel(chatOpenAi(server())),
				config: { model: 'gpt-4o-mini', json_mode: 'json_object' },
				prompt: 'q',
			});

			expect(result.final_answer).toBe('plain');
			expect(
				server().requests.map((request) => request.body.response_format?.type ?? 'none'),
			).toEqual(['json_object', 'none']);
		});
	});

	describe('an error the endpoint answers with', () => {
		const server = useScriptedServer();

		it('reads as its status and the provider’s own message, without LangChain’s troubleshooting URL', async () => {
			server().setScript([
				{
					status: 404,
					errorMessage: 'The model `gpt-9` does not exist or you do not have access to it.',
				},
			]);
			const result = await runAgent({
				model: new LangChainChatModel(chatOpenAi(server())),
				config: { model: 'gpt-4o-mini' },
				prompt: 'q',
			});

			expect(result.finish_reason).toBe('llm_error');
			expect(result.stop_detail).toBe(
				'model call failed: 404 The model `gpt-9` does not exist or you do not have access to it.',
			);
			expect(result.trace[0].error?.status).toBe(404);
		});
	});
});
