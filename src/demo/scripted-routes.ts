/**
 * Which wire format a request to the scripted server speaks, and the format's writer for a whole
 * (non-streamed) answer, so that the server itself only routes.
 */
import type * as http from 'node:http';
import { anthropicMessage } from './scripted-anthropic';
import { ollamaChat, ollamaTags, ollamaVersion } from './scripted-ollama';
import { responsesObject } from './scripted-responses';
import type { ScriptedRequest } from './scripted-types';
import {
	geminiCompletion,
	openAiCompletion,
	type Provider,
	type WireReply,
	type WireUsage,
} from './scripted-wire';

/** A model call's route: its format, Gemini's model from the path, and how the call asks for a stream. */
export interface ModelRoute {
	provider: Provider;
	geminiModel?: string;
	/** Whether the call streams, given its body. */
	streamed(body: any): boolean;
}

const GEMINI_GENERATE_PATH =
	/^\/(?:v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const GEMINI_LIST_PATH = /^\/(?:v1|v1beta|v1alpha)\/models$/;
const streamsWhenAsked = (body: any): boolean => body.stream === true;

/** The model call a POST to `path` is, or undefined when the path is no model call. */
export function modelRoute(method: string | undefined, path: string): ModelRoute | undefined {
	if (method !== 'POST') return undefined;
	if (path === '/v1/chat/completions') return { provider: 'openai', streamed: streamsWhenAsked };
	if (path === '/v1/responses') return { provider: 'openai-responses', streamed: streamsWhenAsked };
	// [AN-client]: the SDK posts to `${baseURL}/v1/messages`; `stream: true` asks for events [AN-stream].
	if (path === '/v1/messages') return { provider: 'anthropic', streamed: streamsWhenAsked };
	// [OL-api]: Ollama streams unless the request says `stream: false`.
	if (path === '/api/chat')
		return { provider: 'ollama', streamed: (body) => body.stream !== false };
	const generateMatch = GEMINI_GENERATE_PATH.exec(path);
	// Gemini's stream is always SSE here, as the SDK always asks `alt=sse` [GG-api].
	if (generateMatch)
		return {
			provider: 'gemini',
			geminiModel: generateMatch[1],
			streamed: () => generateMatch[2] === 'streamGenerateContent',
		};
	return undefined;
}

/** The body of a model-listing GET in the format the client speaks, or undefined when `path` lists nothing. */
export function modelListing(
	method: string | undefined,
	path: string,
	headers: http.IncomingHttpHeaders,
	query: string,
	models: string[],
): object | undefined {
	if (method !== 'GET') return undefined;
	if (path === '/v1/models' && !isGeminiClient(headers, query)) {
		return {
			object: 'list',
			data: models.map((id) => ({
				id,
				object: 'model',
				created: 1700000000,
				owned_by: 'scripted-server',
			})),
		};
	}
	if (path === '/api/tags') return ollamaTags(models);
	if (path === '/api/version') return ollamaVersion();
	if (GEMINI_LIST_PATH.test(path)) {
		return {
			models: models.map((id) => ({
				name: `models/${id}`,
				displayName: id,
				supportedGenerationMethods: ['generateContent'],
			})),
		};
	}
	return undefined;
}

/** The format to answer an unroutable request in: Ollama's for its `/api/` paths, Gemini's for Gemini clients, else OpenAI's. */
export function errorFormatOf(
	path: string,
	headers: http.IncomingHttpHeaders,
	query: string,
): Provider {
	if (path.startsWith('/api/')) return 'ollama';
	return isGeminiClient(headers, query) ? 'gemini' : 'openai';
}

/** Gemini clients announce themselves with Google headers or a `key` query parameter; OpenAI ones never do. */
function isGeminiClient(headers: http.IncomingHttpHeaders, query: string): boolean {
	return (
		headers['x-goog-api-key'] !== undefined ||
		headers['x-goog-api-client'] !== undefined ||
		/(?:^|&)key=/.test(query)
	);
}

/** Each format's whole answer to a call that does not stream. */
export const COMPLETIONS: Record<
	Provider,
	(request: ScriptedRequest, reply: WireReply, usage: WireUsage) => object
> = {
	openai: openAiCompletion,
	gemini: geminiCompletion,
	anthropic: anthropicMessage,
	'openai-responses': responsesObject,
	ollama: ollamaChat,
};
