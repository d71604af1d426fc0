// Model objects of one API key and address share one openai SDK client; each model still sends its own key (issue #49).
import { sharedOpenAiClient } from '../../src/providers/openai/sdk';
import { OpenAiChatModel } from '../../src/providers/openai';
import type { ChatRequest } from '../../src/providers/chat-model';
import { useScriptedServer } from '../support/agent';

const request = (): ChatRequest => ({
	model: 'gpt-4o-mini',
	messages: [{ role: 'user', content: 'Hello' }],
	responseFormat: { type: 'text' },
	signal: new AbortController().signal,
});

describe('the openai SDK clients of the engine’s adapter', () => {
	const server = useScriptedServer();

	it('are one per API key and base URL: the same pair gets the same client, another key or address another', () => {
		const url = 'http://127.0.0.1:9/v1';
		const first = sharedOpenAiClient('sk-one-0123456789', url);
		expect(sharedOpenAiClient('sk-one-0123456789', url)).toBe(first);
		expect(sharedOpenAiClient('sk-two-0123456789', url)).not.toBe(first);
		expect(sharedOpenAiClient('sk-one-0123456789', 'http://127.0.0.1:10/v1')).not.toBe(first);
		expect(sharedOpenAiClient('sk-one-0123456789', undefined)).toBe(
			sharedOpenAiClient('sk-one-0123456789', ''),
		);
		// The SDK reads OPENAI_BASE_URL (and more) when a client is made: another environment, another client.
		const before = sharedOpenAiClient('sk-one-0123456789', undefined);
		process.env.OPENAI_BASE_URL = 'http://127.0.0.1:11/v1';
		try {
			expect(sharedOpenAiClient('sk-one-0123456789', undefined)).not.toBe(before);
		} finally {
			delete process.env.OPENAI_BASE_URL;
		}
	});

	it('keep at most 32: the least recently used is built again after 32 others', () => {
		const url = 'http://127.0.0.1:9/v1';
		const kept = sharedOpenAiClient('sk-kept-0123456789', url);
		const dropped = sharedOpenAiClient('sk-dropped-0123456789', url);
		for (let index = 0; index < 31; index++) {
			sharedOpenAiClient(`sk-other-${index}-0123456789`, url);
			// Used again, so it stays the most recently used.
			expect(sharedOpenAiClient('sk-kept-0123456789', url)).toBe(kept);
		}
		expect(sharedOpenAiClient('sk-dropped-0123456789', url)).not.toBe(dropped);
	});

	it('send each model’s own key, in any order of calls, and every answer reaches its caller', async () => {
		server().setScript(['a', 'b', 'c', 'd']);
		const baseUrl = server().openaiBaseUrl;
		const one = new OpenAiChatModel({ apiKey: 'sk-alpha-0123456789', baseUrl });
		const two = new OpenAiChatModel({ apiKey: 'sk-beta-0123456789', baseUrl });
		const again = new OpenAiChatModel({ apiKey: 'sk-alpha-0123456789', baseUrl });
		const replies = await Promise.all(
			[one, two, again, two].map((model) => model.generate(request())),
		);
		expect(replies.map((reply) => reply.text).sort()).toEqual(['a', 'b', 'c', 'd']);
		expect(
			server()
				.requests.map((sent) => sent.headers.authorization)
				.sort(),
		).toEqual([
			'Bearer sk-alpha-0123456789',
			'Bearer sk-alpha-0123456789',
			'Bearer sk-beta-0123456789',
			'Bearer sk-beta-0123456789',
		]);
	});
});
