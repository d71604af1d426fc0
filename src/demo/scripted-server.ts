/**
 * A local model server that speaks the OpenAI chat-completions and Responses, the Gemini generateContent,
 * the Anthropic Messages and Ollama's native chat wire formats and answers with scripted replies. Tests, `npm run demo` and the
 * benchmarks point the real `openai`, `@google/genai` and `@anthropic-ai/sdk` SDKs at it, so every byte the engine sees went through the vendors' own
 * request and error handling, with no network and no mocked modules.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseModelCall } from './scripted-request';
import {
	estimateUsage,
	pickReply,
	resolveReply,
	type ResolvedReply,
	type Script,
} from './scripted-script';
import { sendEventStream, streamFor, waitUnlessClientLeaves } from './scripted-stream';
import { anthropicSamplingRefusal } from './scripted-anthropic';
import { anthropicCompatRefusal, anthropicCompatView } from './scripted-anthropic-compat';
import { jsonSchemaRefusal, strictRefusal } from './scripted-strict';
import { COMPLETIONS, errorFormatOf, modelListing, modelRoute } from './scripted-routes';
import { errorBody, reasoningModelRefusal } from './scripted-wire';
import { filesOf, malformedFilePart, refusedFileInput, type RefusedInput } from './scripted-files';
import type { ScriptedRequest } from './scripted-types';
export type { ScriptedFile, ScriptedRequest } from './scripted-types';
export type { Script, ScriptedReply } from './scripted-script';

export interface ScriptedServerOptions {
	/** Defaults to an empty array: every call answers HTTP 500 "no reply scripted". */
	script?: Script;
	/** Model ids served by every model-listing endpoint (OpenAI, Gemini, Ollama `/api/tags`). */
	models?: string[];
	/** Answer HTTP 400 to OpenAI calls carrying `response_format`, like endpoints without JSON mode. */
	rejectResponseFormat?: boolean;
	/**
	 * Answer HTTP 400 to calls carrying a response schema (OpenAI `json_schema`, Gemini `responseJsonSchema`),
	 * like endpoints and models without structured output; JSON mode alone is accepted.
	 */
	rejectJsonSchema?: boolean;
	/** Refuse what GPT-5-family models refuse: any temperature but 1, and `max_tokens` (see `reasoningModelRefusal`). */
	reasoningModel?: boolean;
	/**
	 * OpenAI chat-completions calls behave as on Anthropic's OpenAI-compatible endpoint (provider-behaviours.md
	 * §3 [D-a-compat]): `response_format` and `reasoning_effort` ignored, `n` other than 1 refused, the
	 * temperature capped at 1, and `messages` recorded as Claude receives them (system and developer text
	 * hoisted into one leading system message).
	 */
	anthropicOpenAiCompat?: boolean;
	/** Play a model without image or PDF input: OpenAI calls holding them get the API's refusal (scripted-files.ts). */
	refuseFiles?: RefusedInput;
	/** Defaults to 0: a free port. */
	port?: number;
}

export interface ScriptedServer {
	/** `http://127.0.0.1:PORT`, also the base URL for @anthropic-ai/sdk (it appends `/v1/messages`) and for Ollama (`/api/…`). */
	url: string;
	/** `baseURL` for the openai SDK (chat completions and Responses). */
	openaiBaseUrl: string;
	/** `httpOptions.baseUrl` for @google/genai (it appends `/v1beta/...` itself). */
	geminiBaseUrl: string;
	/** Every model call received, in arrival order; malformed requests are not model calls and are not kept. */
	requests: ScriptedRequest[];
	/** Replaces the script and restarts call numbering at 0; `requests` is kept. */
	setScript(script: Script): void;
	/** Throws when the current script is an array with replies that were never requested. */
	assertAllUsed(): void;
	/** Closes the server and every open socket, keep-alive ones included, and cancels pending delays. */
	close(): Promise<void>;
}

const DEFAULT_MODELS = ['scripted-model', 'gpt-4o-mini', 'gemini-2.5-flash'];
type ParsedRequest = Omit<ScriptedRequest, 'callIndex' | 'clientLeftEarly'>;

/** Starts a scripted model server on 127.0.0.1 and resolves once it listens. */
export async function startScriptedServer(
	options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
	const models = options.models ?? DEFAULT_MODELS;
	const requests: ScriptedRequest[] = [];
	const pendingDelays = new Set<() => void>();
	let script: Script = options.script ?? [];
	let nextCallIndex = 0;

	/** Logs the call under `callIndex`; the logged object notes a client that leaves before the answer is whole. */
	function logCall(
		call: ParsedRequest,
		callIndex: number,
		response: http.ServerResponse,
	): ScriptedRequest {
		const logged: ScriptedRequest = { ...call, callIndex, clientLeftEarly: false };
		response.once('close', () => {
			if (!response.writableFinished) logged.clientLeftEarly = true;
		});
		requests.push(logged);
		return logged;
	}

	async function answerModelCall(
		parsed: ParsedRequest,
		response: http.ServerResponse,
	): Promise<void> {
		const compat = options.anthropicOpenAiCompat && parsed.provider === 'openai';
		const call = compat
			? { ...parsed, ...anthropicCompatView(parsed.body, parsed.messages) }
			: parsed;
		if (
			call.provider === 'openai' &&
			options.rejectResponseFormat &&
			call.body.response_format !== undefined
		) {
			logCall(call, nextCallIndex, response);
			const message = 'Unrecognized request argument supplied: response_format';
			return sendJson(response, 400, {
				error: { message, type: 'invalid_request_error', param: 'response_format', code: null },
			});
		}
		const refusal =
			malformedFilePart(call.provider, call.body) ??
			refusedFileInput(call.provider, call.body, options.refuseFiles) ??
			(compat ? anthropicCompatRefusal(call.body) : undefined) ??
			(options.rejectJsonSchema ? jsonSchemaRefusal(call.provider, call.body) : undefined) ??
			(call.provider === 'openai' && !compat ? strictRefusal(call.body) : undefined) ??
			(options.reasoningModel ? reasoningModelRefusal(call.provider, call.body) : undefined) ??
			(call.provider === 'anthropic' ? anthropicSamplingRefusal(call.body) : undefined);
		if (refusal) {
			logCall(call, nextCallIndex, response);
			return sendJson(response, refusal.status, refusal.body);
		}
		const request = logCall(call, nextCallIndex++, response);
		let reply: ResolvedReply;
		try {
			reply = resolveReply(await pickReply(script, request));
		} catch (error) {
			const errorMessage = `scripted server: the script threw: ${(error as Error)?.message ?? error}`;
			reply = resolveReply({ status: 500, errorMessage });
		}
		if (
			reply.delayMs > 0 &&
			!(await waitUnlessClientLeaves(reply.delayMs, response, pendingDelays))
		)
			return;
		// A raw body goes out as it is, with its status: an error body of the provider's own shape too (e.g. Gemini's RetryInfo details).
		if (reply.rawBody !== undefined)
			return sendRaw(
				response,
				reply.status,
				reply.rawBody,
				reply.contentType ?? 'text/html; charset=utf-8',
				reply.headers,
			);
		if (reply.status >= 400) {
			return sendJson(
				response,
				reply.status,
				errorBody(call.provider, reply.status, reply.errorMessage),
				reply.headers,
			);
		}
		const usage = reply.usage ?? estimateUsage(request.messages, reply.text);
		if (request.streamed) {
			const streamOptions = {
				provider: call.provider,
				chunkDelayMs: reply.chunkDelayMs ?? 0,
				headers: reply.headers,
				pendingDelays,
			};
			return sendEventStream(response, streamFor(request, reply, usage), streamOptions);
		}
		sendJson(
			response,
			reply.status,
			COMPLETIONS[call.provider](request, reply, usage),
			reply.headers,
		);
	}

	async function route(
		request: http.IncomingMessage,
		response: http.ServerResponse,
	): Promise<void> {
		const [rawPath, query = ''] = (request.url ?? '/').split('?');
		const path = rawPath.replace(/\/{2,}/g, '/');
		const modelCall = modelRoute(request.method, path);
		if (modelCall) {
			const { provider } = modelCall;
			const parsed = parseModelCall(provider, await readBody(request), modelCall.geminiModel);
			if ('problem' in parsed)
				return sendJson(
					response,
					400,
					errorBody(provider, 400, `scripted server: ${parsed.problem}`),
				);
			return answerModelCall(
				{
					provider,
					...parsed,
					headers: request.headers,
					streamed: modelCall.streamed(parsed.body),
					files: filesOf(provider, parsed.body),
				},
				response,
			);
		}
		const listing = modelListing(request.method, path, request.headers, query, models);
		if (listing) return sendJson(response, 200, listing);
		const message = `scripted server: no route for ${request.method} ${path}`;
		sendJson(response, 404, errorBody(errorFormatOf(path, request.headers, query), 404, message));
	}

	const server = http.createServer((request, response) => {
		// A client that vanishes mid-body must not become an unhandled 'error' event.
		request.on('error', () => undefined);
		route(request, response).catch((error: Error) => {
			sendJson(
				response,
				500,
				errorBody('openai', 500, `scripted server: ${error?.message ?? error}`),
			);
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
	});
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	let closing: Promise<void> | undefined;

	return {
		url,
		openaiBaseUrl: `${url}/v1`,
		geminiBaseUrl: url,
		requests,
		setScript(replacement) {
			script = replacement;
			nextCallIndex = 0;
		},
		assertAllUsed() {
			if (Array.isArray(script) && nextCallIndex < script.length) {
				const unused = script.length - nextCallIndex;
				const replies = unused === 1 ? 'reply was' : 'replies were';
				throw new Error(
					`scripted server: ${unused} scripted ${replies} never requested (calls ${nextCallIndex}..${script.length - 1})`,
				);
			}
		},
		close() {
			closing ??= new Promise<void>((resolve) => {
				for (const cancel of [...pendingDelays]) cancel();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}

function readBody(request: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function sendRaw(
	response: http.ServerResponse,
	status: number,
	body: string,
	contentType: string,
	headers: Record<string, string>,
): void {
	if (response.headersSent || response.destroyed) return;
	response.writeHead(status, {
		'content-type': contentType,
		'content-length': Buffer.byteLength(body),
		...headers,
	});
	response.end(body);
}

function sendJson(
	response: http.ServerResponse,
	status: number,
	body: object,
	headers: Record<string, string> = {},
): void {
	if (response.headersSent || response.destroyed) return;
	const payload = JSON.stringify(body);
	response.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	response.end(payload);
}
