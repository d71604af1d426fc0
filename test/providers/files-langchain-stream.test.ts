import { createHash, randomUUID } from 'node:crypto';
import { ChatOpenAI } from '@langchain/openai';
import type { ChatMessage } from '../../src/core/messages';
import { RunFile, sniffType } from '../../src/files';
import type { ChatRequest } from '../../src/providers/chat-model';
import { LangChainChatModel } from '../../src/providers/langchain';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { useScriptedServer } from '../support/agent';

/**
 * Issue #40: a ChatOpenAI sub-node (n8n's OpenAI Chat Model) sends a run's files as a stream of their base64,
 * with an exact Content-Length, through its own openai-node client (src/providers/langchain/file-fetch.ts): the messages
 * carry markers, and the class's client fetch swaps them. What reaches the server must be the file, whole,
 * on both APIs, through whatever fetch the sub-node was given; a class where the hook does not hold sends
 * the base64 as before, and text that only looks like a marker stays text.
 */

const API_KEY = 'sk-langchain-stream-key-4242';
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** A PDF of several 512 KiB base64 chunks. */
const bigPdf = Buffer.concat([
	Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\n% big\n%%EOF\n', 'latin1'),
	Buffer.alloc(2_100_000, 0x61),
]);

function runFile(name: string, bytes: Uint8Array): RunFile {
	const sniffed = sniffType(bytes, name);
	if (!sniffed.ok) throw new Error(`test file ${name} was refused`);
	return RunFile.of(name, sniffed.type, sniffed.kind, bytes);
}

function requestWith(content: string, files: RunFile[]): ChatRequest {
	const messages: ChatMessage[] = [
		{ role: 'system', content: 'You are Agent Core.' },
		{ role: 'user', content, files },
	];
	return {
		model: 'gpt-4o-mini',
		messages,
		responseFormat: { type: 'text' },
		signal: new AbortController().signal,
	};
}

const chatOpenAi = (
	server: ScriptedServer,
	extra: { useResponsesApi?: boolean; fetch?: typeof fetch } = {},
) =>
	new ChatOpenAI({
		apiKey: API_KEY,
		model: 'gpt-4o-mini',
		maxRetries: 0,
		useResponsesApi: extra.useResponsesApi ?? false,
		configuration: {
			baseURL: server.openaiBaseUrl,
			...(extra.fetch ? { fetch: extra.fetch } : {}),
		},
	});

describe('files through a ChatOpenAI sub-node: streamed, not held as base64 text', () => {
	const server = useScriptedServer({ script: () => 'ok' });

	it.each([
		['chat completions', false],
		['the Responses API', true],
	])(
		'on %s: the PDF arrives whole, with its exact Content-Length, not chunked',
		async (_api, useResponsesApi) => {
			const model = new LangChainChatModel(chatOpenAi(server(), { useResponsesApi }));
			await model.generate(requestWith('Sum?', [runFile('big.pdf', bigPdf)]));
			const [request] = server().requests;
			expect(request.files.map((file) => [file.bytes, file.sha256])).toEqual([
				[bigPdf.length, sha(bigPdf)],
			]);
			expect(request.headers['transfer-encoding']).toBeUndefined();
			expect(Number(request.headers['content-length'])).toBe(
				Buffer.byteLength(JSON.stringify(request.body)),
			);
			expect(JSON.stringify(request.body)).not.toContain('agent-core-file-');
		},
	);

	it("goes through the fetch the sub-node was given (n8n's proxy), once per call, with the file in its body", async () => {
		const seen: Array<{ streamed: boolean }> = [];
		const given: typeof fetch = (input, init) => {
			seen.push({ streamed: init?.body instanceof ReadableStream });
			return fetch(input, init);
		};
		const model = new LangChainChatModel(chatOpenAi(server(), { fetch: given }));
		await model.generate(requestWith('Sum?', [runFile('big.pdf', bigPdf)]));
		expect(seen).toEqual([{ streamed: true }]);
		expect(server().requests[0].files[0].sha256).toBe(sha(bigPdf));
	});

	it('text that looks like a file marker is sent as the text it is, beside the real file', async () => {
		const forged = `agent-core-file-${randomUUID()}:0`;
		const model = new LangChainChatModel(chatOpenAi(server()));
		await model.generate(requestWith(`What is ${forged}?`, [runFile('big.pdf', bigPdf)]));
		const [request] = server().requests;
		expect(request.body.messages[1].content[0]).toEqual({
			type: 'text',
			text: `What is ${forged}?`,
		});
		expect(request.files[0].sha256).toBe(sha(bigPdf));
	});

	it('a class whose client does not take the fetch it is given sends the base64 itself, as before', async () => {
		const chat = chatOpenAi(server());
		// A version that builds its client from elsewhere: the hook cannot be seen to hold, so it is not used.
		const { completions, responses } = chat as unknown as Record<string, unknown>;
		const holders = [chat, completions, responses] as unknown as Array<{
			_getClientOptions: (options: unknown) => unknown;
			client?: { fetch?: unknown };
		}>;
		for (const holder of holders) {
			const build = holder._getClientOptions.bind(holder);
			holder._getClientOptions = (options) => {
				const built = build(options);
				if (holder.client) holder.client.fetch = fetch;
				return built;
			};
		}
		await new LangChainChatModel(chat).generate(requestWith('Sum?', [runFile('big.pdf', bigPdf)]));
		const [request] = server().requests;
		expect(request.files[0].sha256).toBe(sha(bigPdf));
		expect(JSON.stringify(request.body)).not.toContain('agent-core-file-');
	});
});
