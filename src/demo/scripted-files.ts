/**
 * Files in model calls, as the scripted server reads them (issue #40): each format's image and document parts
 * are recorded (their type, size and SHA-256, never their bytes), malformed file parts are refused as the
 * real APIs refuse them, and a server playing a model without image or PDF input refuses those with the
 * provider's own error body. Keys in brackets name sources as in ../shared/reference/provider-behaviours.md.
 */
import { createHash } from 'node:crypto';
import type { Provider, ScriptedFile } from './scripted-types';
import { errorBody } from './scripted-wire';

/** What a scripted model does not take: images, PDFs (the server refuses calls holding them). */
export interface RefusedInput {
	images?: boolean;
	pdfs?: boolean;
}

type Refusal = { status: number; body: object };

const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s;

function fileOf(wire: string, type: string, base64: string, name?: unknown) {
	const bytes = Buffer.from(base64, 'base64');
	return {
		wire,
		type,
		...(typeof name === 'string' ? { name } : {}),
		bytes: bytes.length,
		sha256: createHash('sha256').update(bytes).digest('hex'),
	};
}

/** A data URL's file, or undefined for anything else (an https URL is no file of the run). */
function dataUrlFile(wire: string, url: unknown, name?: unknown) {
	const match = typeof url === 'string' ? DATA_URL.exec(url) : null;
	return match ? fileOf(wire, match[1], match[2], name) : undefined;
}

/** One part's file in `provider`'s format, or undefined when the part is no file. */
function partFile(
	provider: Provider,
	part: any,
): Omit<ScriptedFile, 'message' | 'part'> | undefined {
	if (typeof part !== 'object' || part === null) return undefined;
	if (provider === 'openai') {
		if (part.type === 'image_url') return dataUrlFile('image_url', part.image_url?.url);
		if (part.type === 'file') return dataUrlFile('file', part.file?.file_data, part.file?.filename);
	}
	if (provider === 'openai-responses') {
		if (part.type === 'input_image') return dataUrlFile('input_image', part.image_url);
		if (part.type === 'input_file') return dataUrlFile('input_file', part.file_data, part.filename);
	}
	if (provider === 'gemini') {
		// The SDK sends camelCase to the Gemini API; the REST API takes snake_case too.
		const inline = part.inlineData ?? part.inline_data;
		if (inline && typeof inline.data === 'string')
			return fileOf('inlineData', String(inline.mimeType ?? inline.mime_type ?? ''), inline.data);
	}
	if (provider === 'anthropic' && (part.type === 'image' || part.type === 'document')) {
		const source = part.source;
		if (source?.type === 'base64' && typeof source.data === 'string')
			return fileOf(part.type, String(source.media_type ?? ''), source.data);
	}
	return undefined;
}

/** The body's message list and each message's part list, in `provider`'s format. */
function messagesOf(provider: Provider, body: any): Array<{ parts: unknown[]; message: any }> {
	const list =
		provider === 'gemini'
			? body.contents
			: provider === 'openai-responses'
				? body.input
				: body.messages;
	if (!Array.isArray(list)) return [];
	return list.map((message: any) => {
		const parts = provider === 'gemini' ? message?.parts : message?.content;
		return { message, parts: Array.isArray(parts) ? parts : [] };
	});
}

/** Every file part of the call, in order. Ollama's `images` (base64 strings on the message) count as images. */
export function filesOf(provider: Provider, body: any): ScriptedFile[] {
	const files: ScriptedFile[] = [];
	messagesOf(provider, body).forEach(({ message, parts }, messageIndex) => {
		if (provider === 'ollama' && Array.isArray(message?.images)) {
			message.images.forEach((image: unknown, index: number) => {
				if (typeof image === 'string')
					files.push({ message: messageIndex, part: index, ...fileOf('images', '', image) });
			});
		}
		parts.forEach((part, partIndex) => {
			const file = partFile(provider, part);
			if (file) files.push({ message: messageIndex, part: partIndex, ...file });
		});
	});
	return files;
}

/** Part types a user message may hold: openai-node's `ChatCompletionContentPart` and Responses `ResponseInputContent` [ON-cc]. */
const PART_TYPES: Partial<Record<Provider, string[]>> = {
	openai: ['text', 'image_url', 'input_audio', 'file'],
	'openai-responses': ['input_text', 'input_image', 'input_file'],
};

/**
 * A user content part the API refuses: a type it does not have (so a class that sends a chat-completions
 * `file` part to the Responses API fails here as it would there), or a file part without its object.
 * OpenAI's bodies: a missing field is "Missing required parameter: '<path>'." (as the server already answers
 * for `messages`), an unknown type "Invalid value: '<type>'. Supported values are: …" with code
 * `invalid_value` (OpenAI's wording for a value outside an enum; **unconfirmed** for this exact field).
 */
export function malformedFilePart(provider: Provider, body: any): Refusal | undefined {
	const types = PART_TYPES[provider];
	if (!types) return undefined;
	const key = provider === 'openai' ? 'messages' : 'input';
	for (const [messageIndex, { message, parts }] of messagesOf(provider, body).entries()) {
		if (message?.role !== 'user') continue;
		for (const [partIndex, part] of parts.entries()) {
			const path = `${key}[${messageIndex}].content[${partIndex}]`;
			const type = (part as { type?: unknown } | null)?.type;
			if (typeof type !== 'string' || !types.includes(type)) {
				const supported = types.map((value) => `'${value}'`).join(', ');
				const message = `Invalid value: '${String(type)}'. Supported values are: ${supported}.`;
				return refusal(400, message, `${path}.type`, 'invalid_value');
			}
			const field = type === 'image_url' ? 'image_url' : type === 'file' ? 'file' : undefined;
			if (field && typeof (part as Record<string, unknown>)[field] !== 'object') {
				const message = `Missing required parameter: '${path}.${field}'.`;
				return refusal(400, message, `${path}.${field}`, 'missing_required_parameter');
			}
		}
	}
	return undefined;
}

/**
 * The refusal of a model without image or PDF input, on OpenAI's formats (chat completions and Responses):
 * - an image: HTTP 400 `invalid_request_error`, "Invalid content type. image_url is only supported by certain
 *   models.", param `messages.[N].content.[M].type`, code null — GPT-3.5's answer to an image, quoted in
 *   vllm-project/vllm#11629 (also roboflow/awesome-openai-vision-api-experiments#11, ozgrozer/ai-renamer#22);
 *   the Responses form names `input_image` and `input.[N]…` (**unconfirmed**: no recorded body);
 * - a PDF: HTTP 400 `invalid_value`, "Invalid 'messages[N]'. Content blocks are expected to be either text
 *   or image_url type.", param `messages[N]` — the recorded answer of a model to a content block it does not
 *   take (realworld case `pyd:test_multimodal_tool_returns/test_multimodal_tool_return_matrix[direct-binary-audio-openai_chat]#1`);
 *   the Responses form names `input[N]` (**unconfirmed**).
 * Gemini and Anthropic models in use all read images and PDFs; no refusal body of theirs is known, so none is played.
 */
export function refusedFileInput(
	provider: Provider,
	body: any,
	refused: RefusedInput | undefined,
): Refusal | undefined {
	if (!refused || (provider !== 'openai' && provider !== 'openai-responses')) return undefined;
	const responses = provider === 'openai-responses';
	for (const file of filesOf(provider, body)) {
		const image = file.wire === 'image_url' || file.wire === 'input_image';
		if (image && refused.images) {
			const list = responses ? 'input' : 'messages';
			const message = `Invalid content type. ${file.wire} is only supported by certain models.`;
			return refusal(400, message, `${list}.[${file.message}].content.[${file.part}].type`, null);
		}
		if (!image && refused.pdfs) {
			const at = `${responses ? 'input' : 'messages'}[${file.message}]`;
			const message = `Invalid '${at}'. Content blocks are expected to be either text or image_url type.`;
			return refusal(400, message, at, 'invalid_value');
		}
	}
	return undefined;
}

function refusal(status: number, message: string, param: string, code: string | null): Refusal {
	return { status, body: errorBody('openai', status, message, { param, code }) };
}
