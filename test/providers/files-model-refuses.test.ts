import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import type { ChatMessage } from '../../src/core/messages';
import { RunFile, sniffType } from '../../src/files';
import type { ChatRequest } from '../../src/providers/chat-model';
import { GeminiChatModel } from '../../src/providers/gemini';
import { LangChainChatModel } from '../../src/providers/langchain';
import { OpenAiChatModel } from '../../src/providers/openai';
import { fileRefusal, ProviderHttpError } from '../../src/providers/provider-errors';
import type { ScriptedServer } from '../../src/demo/scripted-server';
import { startsScriptedServers, useScriptedServer } from '../support/agent';

/**
 * Issue #40: a model that does not take images or PDFs answers with its provider's own error body (played by
 * the scripted server as recorded, see src/demo/scripted-files.ts); the adapters turn it into one sentence
 * naming the model and the option to turn off, never the raw provider error, and only when the request held
 * such files.
 */

const IMAGE_SENTENCE =
	'does not take images: choose a model that reads them, or turn off Automatically Passthrough Binary Images (pass_images)';
const PDF_SENTENCE =
	'does not take PDFs: choose a model that reads them, or turn off Passthrough Binary PDFs (pass_pdfs)';

function runFile(name: string, bytes: Uint8Array): RunFile {
	const sniffed = sniffType(bytes, name);
	if (!sniffed.ok) throw new Error(`test file ${name} was refused`);
	return RunFile.of(name, sniffed.type, sniffed.kind, bytes);
}
const photo = () =>
	runFile(
		'photo.png',
		Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
	);
const invoice = () => runFile('invoice.pdf', Buffer.from('%PDF-1.4\n%%EOF\n', 'latin1'));

function requestWith(files: RunFile[], model = 'gpt-3.5-turbo'): ChatRequest {
	const messages: ChatMessage[] = [
		{ role: 'system', content: 'You are Agent Core.' },
		{ role: 'user', content: 'Read this.', files },
	];
	return {
		model,
		messages,
		responseFormat: { type: 'text' },
		signal: new AbortController().signal,
	};
}

const API_KEY = 'sk-files-refusal-key-4242';
const openAi = (server: ScriptedServer) =>
	new OpenAiChatModel({ apiKey: API_KEY, baseUrl: server.openaiBaseUrl, maxRetries: 2 });
const chatOpenAi = (server: ScriptedServer, useResponsesApi = false) =>
	new LangChainChatModel(
		new ChatOpenAI({
			apiKey: API_KEY,
			model: 'gpt-3.5-turbo',
			maxRetries: 0,
			useResponsesApi,
			configuration: { baseURL: server.openaiBaseUrl },
		}),
	);

async function failure(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise;
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected the call to fail');
}

describe('a model without image input (OpenAI chat completions)', () => {
	const server = useScriptedServer({ script: () => 'ok', refuseFiles: { images: true } });

	it('answers as OpenAI does, and the adapter says so in one sentence, without retrying', async () => {
		const error = await failure(openAi(server()).generate(requestWith([photo()])));
		expect(error).toBeInstanceOf(ProviderHttpError);
		expect(error.message).toBe(`model gpt-3.5-turbo ${IMAGE_SENTENCE}`);
		expect((error as ProviderHttpError).status).toBe(400);
		expect((error as ProviderHttpError).details).toEqual({
			provider_message: '400 Invalid content type. image_url is only supported by certain models.',
			refused: 'image',
		});
		expect(error.stack ?? '').not.toContain('APIError');
		// A 400 is the model's answer: one request, no retry.
		expect(server().requests).toHaveLength(1);
	});

	it('plays the API’s exact body: param names the part, code null', async () => {
		const client = new OpenAI({ apiKey: API_KEY, baseURL: server().openaiBaseUrl, maxRetries: 0 });
		const error = (await failure(
			client.chat.completions.create({
				model: 'gpt-3.5-turbo',
				messages: [
					{ role: 'system', content: 's' },
					{
						role: 'user',
						content: [
							{ type: 'text', text: 'what is this?' },
							{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
						],
					},
				],
			}),
		)) as InstanceType<typeof OpenAI.APIError>;
		expect(error.status).toBe(400);
		expect(error.error).toEqual({
			message: 'Invalid content type. image_url is only supported by certain models.',
			type: 'invalid_request_error',
			param: 'messages.[1].content.[1].type',
			code: null,
		});
	});

	it('takes PDFs still: a PDF alone goes through', async () => {
		await expect(openAi(server()).generate(requestWith([invoice()]))).resolves.toMatchObject({
			text: 'ok',
		});
	});
});

describe('a model without PDF input', () => {
	const start = startsScriptedServers();

	it('chat completions: the recorded body, and the sentence naming Passthrough Binary PDFs', async () => {
		const server = await start({ script: () => 'ok', refuseFiles: { pdfs: true } });
		const error = await failure(openAi(server).generate(requestWith([photo(), invoice()])));
		expect(error.message).toBe(`model gpt-3.5-turbo ${PDF_SENTENCE}`);
		expect((error as ProviderHttpError).details?.provider_message).toBe(
			"400 Invalid 'messages[1]'. Content blocks are expected to be either text or image_url type.",
		);
	});

	it('through ChatOpenAI on chat completions and on the Responses API, naming the sub-node’s model', async () => {
		const server = await start({ script: () => 'ok', refuseFiles: { pdfs: true, images: true } });
		for (const responses of [false, true]) {
			const model = chatOpenAi(server, responses);
			const pdf = await failure(model.generate(requestWith([invoice()], 'not-the-sub-node-model')));
			expect(pdf.message).toBe(`model gpt-3.5-turbo ${PDF_SENTENCE}`);
			const image = await failure(model.generate(requestWith([photo()], 'not-the-sub-node-model')));
			expect(image.message).toBe(`model gpt-3.5-turbo ${IMAGE_SENTENCE}`);
		}
		expect(server.requests.map((request) => request.provider)).toEqual([
			'openai',
			'openai',
			'openai-responses',
			'openai-responses',
		]);
	});
});

describe('recognised only when the request held such files', () => {
	const start = startsScriptedServers();

	it('the same body to a request without files stays the provider’s own error', async () => {
		const server = await start({
			script: {
				status: 400,
				errorMessage: 'Invalid content type. image_url is only supported by certain models.',
			},
		});
		const error = await failure(openAi(server).generate(requestWith([])));
		expect(error.message).toBe(
			'400 Invalid content type. image_url is only supported by certain models.',
		);
	});

	it('an image refusal to a request holding only a PDF is not called an image refusal', () => {
		const error = { status: 400, message: 'this model does not support image input' };
		const holding = (files: RunFile[]) => requestWith(files, 'm');
		expect(fileRefusal(error, holding([invoice()]))).toBeUndefined();
		expect(fileRefusal(error, holding([photo()]))?.message).toBe(`model m ${IMAGE_SENTENCE}`);
		// Another status (a 500, a 429) is never read as a refusal of files.
		expect(fileRefusal({ ...error, status: 500 }, holding([photo()]))).toBeUndefined();
	});

	it('Gemini: a model that answers a 400 refusing the image gets the same sentence', async () => {
		const server = await start({
			script: { status: 400, errorMessage: 'This model does not support image input.' },
		});
		const model = new GeminiChatModel({
			apiKey: API_KEY,
			baseUrl: server.geminiBaseUrl,
			maxRetries: 0,
		});
		const error = await failure(model.generate(requestWith([photo()], 'gemma-3-1b-it')));
		expect(error.message).toBe(`model gemma-3-1b-it ${IMAGE_SENTENCE}`);
	});
});

describe('the scripted server refuses malformed file parts as the APIs do', () => {
	const server = useScriptedServer({ script: () => 'ok' });

	it('a chat-completions file part sent to the Responses API (what ChatOpenAI makes of a data block there)', async () => {
		const client = new OpenAI({ apiKey: API_KEY, baseURL: server().openaiBaseUrl, maxRetries: 0 });
		const error = (await failure(
			client.responses.create({
				model: 'gpt-4o-mini',
				input: [
					{
						role: 'user',
						content: [
							{ type: 'input_text', text: 'total?' },
							{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
						] as never,
					},
				],
			}),
		)) as InstanceType<typeof OpenAI.APIError>;
		expect(error.status).toBe(400);
		expect(error.error).toMatchObject({ param: 'input[0].content[1].type', code: 'invalid_value' });
	});

	it('a file part without its file object on chat completions (a v1 block sent unconverted)', async () => {
		const client = new OpenAI({ apiKey: API_KEY, baseURL: server().openaiBaseUrl, maxRetries: 0 });
		const error = (await failure(
			client.chat.completions.create({
				model: 'gpt-4o-mini',
				messages: [
					{
						role: 'user',
						content: [{ type: 'file', mimeType: 'application/pdf', data: 'JVBERi0=' }] as never,
					},
				],
			}),
		)) as InstanceType<typeof OpenAI.APIError>;
		expect(error.error).toMatchObject({
			message: "Missing required parameter: 'messages[0].content[0].file'.",
			code: 'missing_required_parameter',
		});
	});
});
