/** Provider errors read one way: the HTTP status and the provider's own short message, every other detail kept in a field. */
import type { ChatMessage } from '../core/messages';
import { fileKindsOf } from './file-parts';

/** Longest provider message kept in an error's message; the whole body stays in `details`. */
const MAX_MESSAGE_CHARACTERS = 400;

/**
 * An error the provider answered with (an HTTP error status, or an error event inside a 200 stream):
 * `message` is `<status> <the provider's own message>`, as openai-node words its errors ([ON-err]);
 * `details` holds the rest of the provider's error object (its RPC status name, `details` array, metadata).
 */
export class ProviderHttpError extends Error {
	override readonly name = 'ProviderHttpError';
	constructor(
		message: string,
		/** The HTTP status; for an error event inside a stream, the code the event carried. */
		readonly status: number | undefined,
		/** The provider's error object without its message, for logs and support; never shown as the message. */
		readonly details: Record<string, unknown> | undefined,
		/** The wait the provider's body asked for before a retry (Gemini `RetryInfo.retryDelay`), in ms. */
		readonly retryAfterMs?: number,
		/** True for an error event inside a 200 stream, which is the provider's answer to the call and not retried. */
		readonly inStream = false,
	) {
		super(message);
	}
}

/** One line, at most MAX_MESSAGE_CHARACTERS long. */
export function shortMessage(text: string): string {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > MAX_MESSAGE_CHARACTERS ? `${line.slice(0, MAX_MESSAGE_CHARACTERS)}…` : line;
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A Google RPC duration ("34.4s", "1s", "0.5s") in ms; undefined for anything else. [GG-errors]: RetryInfo
 * carries `retryDelay` as a protobuf Duration, which JSON writes as decimal seconds with an `s`.
 */
export function parseRpcDuration(value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
	return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/**
 * The error object of a Gemini error body `{"error":{code,message,status,details}}` ([GG-errors]), with the
 * SDK's wrapping undone: a non-JSON error body becomes `{"error":{"message":<the body text>,…}}`, and when
 * that text is itself such a body (a proxy that re-wraps, provider-behaviours.md §2 [I-g503]) the inner one counts.
 */
function geminiErrorObject(text: string): Record<string, unknown> | undefined {
	let error = (parseJson(text) as { error?: unknown } | undefined)?.error;
	for (let depth = 0; isObject(error) && typeof error.message === 'string' && depth < 3; depth++) {
		const inner = (parseJson(error.message) as { error?: unknown } | undefined)?.error;
		if (!isObject(inner)) break;
		error = inner;
	}
	return isObject(error) ? error : undefined;
}

/**
 * @google/genai's ApiError as a ProviderHttpError. The SDK puts the whole error body, JSON-encoded, in the
 * message (an HTTP error: the body; an error event in a stream: "got status: <status>. <event JSON>"), which
 * users met as hundreds of characters of doubly escaped JSON (issue #27, realworld case
 * `pyd:test_model_name_suggestions/test_model_name_suggestion[google]#0`). Anything else is returned as it is.
 */
export function readGeminiError(error: unknown): unknown {
	const { name, message, status } = (error ?? {}) as {
		name?: unknown;
		message?: unknown;
		status?: unknown;
	};
	if (name !== 'ApiError' || typeof message !== 'string') return error;
	const inStream = /^got status: /.test(message);
	const body = inStream ? message.replace(/^got status: [^.]*\.\s*/, '') : message;
	const object = geminiErrorObject(body);
	const code =
		typeof status === 'number'
			? status
			: typeof object?.code === 'number'
				? object.code
				: undefined;
	if (!object)
		return new ProviderHttpError(
			shortMessage(`${code ?? ''} ${message}`),
			code,
			undefined,
			undefined,
			inStream,
		);
	const { message: providerMessage, ...rest } = object;
	const text =
		typeof providerMessage === 'string' && providerMessage.trim() !== ''
			? providerMessage
			: String(object.status ?? 'no message');
	const retryInfo = Array.isArray(object.details)
		? (object.details as unknown[]).find(
				(detail) => isObject(detail) && String(detail['@type']).endsWith('google.rpc.RetryInfo'),
			)
		: undefined;
	const retryAfterMs = isObject(retryInfo) ? parseRpcDuration(retryInfo.retryDelay) : undefined;
	return new ProviderHttpError(
		shortMessage(`${code ?? ''} ${text}`),
		code,
		rest,
		retryAfterMs,
		inStream,
	);
}

/**
 * The upstream reason an OpenAI-compatible router sends apart from its message: OpenRouter answers a
 * provider's failure as `{"error":{"message":"Provider returned error","metadata":{"provider_name","raw"}}}`
 * (realworld case `pyd:test_openrouter/test_openrouter_errors_raised#0`), so the message alone says nothing.
 * Returns the message with the reason added, or undefined when the body has none.
 */
export function withUpstreamReason(message: string, body: unknown): string | undefined {
	const metadata = isObject(body) && isObject(body.metadata) ? body.metadata : undefined;
	if (!metadata) return undefined;
	const raw = metadata.raw;
	const reason =
		typeof raw === 'string'
			? raw
			: isObject(raw) || Array.isArray(raw)
				? JSON.stringify(raw)
				: undefined;
	if (!reason || reason.trim() === '' || message.includes(reason.trim())) return undefined;
	// A raw reason that is itself an error body reads as its message.
	const inner = (parseJson(reason) as { error?: { message?: unknown } } | undefined)?.error
		?.message;
	const readable = typeof inner === 'string' ? inner : reason;
	const provider = typeof metadata.provider_name === 'string' ? `${metadata.provider_name}: ` : '';
	return shortMessage(`${message} (${provider}${readable})`);
}

/**
 * A vendor SDK's HTTP error as the LangChain classes pass it on (@langchain/anthropic and @langchain/openai
 * throw the Anthropic SDK's or openai-node's APIError: `status`, the body in `error`) as a ProviderHttpError
 * `<status> <the provider's own message>`. The Anthropic SDK words its message as the body's JSON
 * (`404 {"type":"error","error":{…}}`) and @langchain/anthropic appends a troubleshooting URL (realworld case
 * `pyd:test_model_name_suggestions/test_model_name_suggestion[anthropic]#0`); the rest of the body goes to
 * `details`. Anything without a status and a provider message is returned as it is.
 */
export function readSdkHttpError(error: unknown): unknown {
	if (!isObject(error) || typeof error.status !== 'number' || error instanceof ProviderHttpError)
		return error;
	const body = error.error;
	// Anthropic's body is {type:"error", error:{type, message}, request_id}; openai-node keeps only the inner object.
	const inner = isObject(body) && isObject(body.error) ? body.error : body;
	if (!isObject(inner) || typeof inner.message !== 'string' || inner.message.trim() === '')
		return error;
	const { message: providerMessage, ...rest } = inner;
	const requestId =
		isObject(body) && typeof body.request_id === 'string' ? { request_id: body.request_id } : {};
	const text = `${error.status} ${providerMessage}`;
	return new ProviderHttpError(
		shortMessage(withUpstreamReason(text, inner) ?? text),
		error.status,
		{ ...rest, ...requestId },
	);
}

/** The Agent Core option that sends each kind of file, in the panel's words and the settings table's. */
const FILE_OPTIONS = {
	image: { noun: 'images', option: 'Automatically Passthrough Binary Images (pass_images)' },
	pdf: { noun: 'PDFs', option: 'Passthrough Binary PDFs (pass_pdfs)' },
} as const;

/**
 * How providers say a model does not take a kind of input. Images: OpenAI's "Invalid content type. image_url
 * is only supported by certain models." (vllm-project/vllm#11629, quoting GPT-3.5; `input_image` on the
 * Responses API), and the "does not support image input" of compatible servers and gateways
 * (cloudflare/cloudflare-os#97, zai-org/feedback#570). PDFs: OpenAI's "Content blocks are expected to be
 * either text or image_url type." (realworld case
 * `pyd:test_multimodal_tool_returns/test_multimodal_tool_return_matrix[direct-binary-audio-openai_chat]#1`),
 * the same "only supported by certain models" sentence naming `file`/`input_file`, and "does not support
 * PDF/document/file input".
 */
const NOT_SUPPORTED = String.raw`(?:does ?n[o']t|do not) support (?:the )?`;
const REFUSES: Record<'image' | 'pdf', RegExp> = {
	image: new RegExp(
		[
			String.raw`\b(?:image_url|input_image) is only supported by certain models`,
			String.raw`\b${NOT_SUPPORTED}image`,
			String.raw`\bimages? (?:input )?(?:is|are) not supported`,
		].join('|'),
		'i',
	),
	pdf: new RegExp(
		[
			'expected to be either text or image_url',
			String.raw`\b(?:file|input_file) is only supported by certain models`,
			String.raw`\b${NOT_SUPPORTED}(?:pdf|document|file)`,
			String.raw`\b(?:pdfs?|documents?) (?:input )?(?:is|are) not supported`,
		].join('|'),
		'i',
	),
};

/**
 * A provider's refusal of the files a request held, as ONE clear sentence naming the model and the option to
 * turn off (issue #40): `model <m> does not take images: choose a model that reads them, or turn off
 * Automatically Passthrough Binary Images (pass_images)`. Recognised only on an HTTP 400/422 (or, for a
 * LangChain class, an error without a status but with the provider's words) whose message says so, and
 * only when the request held that kind of file; anything else is returned as undefined. The provider's own
 * message stays in `details.provider_message`.
 */
export function fileRefusal(
	error: unknown,
	request: { model: string; messages: readonly ChatMessage[] },
	model = request.model,
): ProviderHttpError | undefined {
	const kinds = fileKindsOf(request.messages);
	if (kinds.size === 0 || !isObject(error)) return undefined;
	const status = typeof error.status === 'number' ? error.status : undefined;
	if (status !== undefined && status !== 400 && status !== 422) return undefined;
	const message = typeof error.message === 'string' ? error.message : '';
	const kind = (['image', 'pdf'] as const).find(
		(candidate) => kinds.has(candidate) && REFUSES[candidate].test(message),
	);
	if (!kind) return undefined;
	const { noun, option } = FILE_OPTIONS[kind];
	return new ProviderHttpError(
		`model ${model} does not take ${noun}: choose a model that reads them, or turn off ${option}`,
		status ?? 400,
		{ provider_message: shortMessage(message), refused: kind },
	);
}
