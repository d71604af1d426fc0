// The scripted server's shared words: a recorded request, a parsed call, a stream event and a reply on the wire, so each
// provider's file imports them from here and none imports another to borrow a type.
import type * as http from 'node:http';
import type { ChatMessage } from '../core/messages';

/** One model call as the server received it, in the neutral message form. */
export interface ScriptedRequest {
	provider: 'openai' | 'gemini' | 'anthropic' | 'openai-responses' | 'ollama';
	/** The model id without any `models/` prefix. */
	model: string;
	messages: ChatMessage[];
	/** The parsed JSON body exactly as the SDK sent it. */
	body: any;
	headers: http.IncomingHttpHeaders;
	/** 0-based index of the scripted reply this call consumed (or would have, when rejected before the script). */
	callIndex: number;
	/** The call asked for a stream (OpenAI, Responses and Anthropic `stream: true`, Gemini `:streamGenerateContent`, Ollama unless `stream: false`). */
	streamed: boolean;
	/** Becomes true when the client closed the connection before the whole answer was sent (e.g. an abort mid-stream). */
	clientLeftEarly: boolean;
	/** The call's image and document parts, in order: their facts, never their bytes (see scripted-files.ts). */
	files: ScriptedFile[];
	/** With `anthropicOpenAiCompat`: the temperature the endpoint applied (capped at 1), when one was sent. */
	effectiveTemperature?: number;
}

/** One file part of a call: where it was, what it was, and its bytes' facts. */
export interface ScriptedFile {
	/** Index of the message it came in, in the body's own list (`messages`, `contents` or `input`). */
	message: number;
	/** Index of the part in that message's content (`content` or `parts`). */
	part: number;
	/** The part's type as sent: `image_url`, `file`, `input_image`, `input_file`, `inlineData`, `image`, `document`, `images`. */
	wire: string;
	/** The MIME type the part declared (a data URL's, `mimeType`, `media_type`); '' when it declared none. */
	type: string;
	/** The file name the part carried (`filename`), if any. */
	name?: string;
	bytes: number;
	sha256: string;
}

/** A model call as the server understood it; `body` is the JSON exactly as sent. */
export type ParsedCall = { model: string; messages: ChatMessage[]; body: any };

/** One event; `piece` marks events that carry a piece of the reply's text or refusal; `event` names it in an `event:` line. */
export interface StreamEvent {
	data: string;
	piece: boolean;
	event?: string;
}

export type Provider = ScriptedRequest['provider'];

/**
 * Token counts as scripted; deliberately loose so tests can send what a broken endpoint sends. `cached_tokens`
 * (cache reads) and `cache_write_tokens` (cache writes) are parts of `prompt_tokens`, sent in each format's
 * own fields: OpenAI `prompt_tokens_details`, Responses `input_tokens_details.cached_tokens`, Gemini
 * `cachedContentTokenCount`, Anthropic `cache_read_input_tokens` / `cache_creation_input_tokens`; a format
 * without such a field (Gemini's and Responses' cache writes, Ollama's both) leaves it out.
 */
export type WireUsage = Record<string, unknown> & {
	prompt_tokens?: unknown;
	completion_tokens?: unknown;
	cached_tokens?: unknown;
	cache_write_tokens?: unknown;
};

/** Everything a successful reply can carry. */
export interface WireReply {
	text: string;
	/** The provider's own finish reason (OpenAI `length`, Gemini `MAX_TOKENS`, …); default `stop` / `STOP`. */
	finishReason?: string;
	/** Native tool calls: OpenAI `tool_calls` with `content: null`, Gemini `functionCall` parts. */
	toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
	/** OpenAI `message.refusal` ([ON-cc]). */
	refusal?: string;
	/** Gemini `promptFeedback.blockReason`, with no candidates ([GG-types]). */
	promptBlocked?: string;
	/** Reasoning tokens: OpenAI `completion_tokens_details.reasoning_tokens`, Gemini `thoughtsTokenCount`. */
	reasoningTokens?: number;
	/**
	 * Reasoning text beside the reply, OpenAI-compatible form: `message.reasoning_content` (DeepSeek, Z.ai, xAI)
	 * or `message.reasoning` (Groq, OpenRouter), streamed as `delta.<field>` pieces before the text
	 * (provider-behaviours.md §4; realworld cases `vercel:xai:xai-text.chunks.txt`, `pyd:test_groq/test_tool_use_failed_error_streaming#2`).
	 */
	reasoning?: { field: 'reasoning_content' | 'reasoning'; text: string };
	/** Anthropic only: cache counts, server-tool input restated at the end, a repeated message_start, refusal details. */
	anthropic?: AnthropicUsageShape;
}

/**
 * How a scripted Anthropic reply reports usage beyond input and output, as recorded replies do (the scripted
 * `prompt_tokens` is the whole input, split here into its three counts).
 */
export interface AnthropicUsageShape {
	/** `cache_creation_input_tokens` and `cache_read_input_tokens` ([AN-msg]: the whole input is the three counts together). */
	cacheCreationTokens?: number;
	cacheReadTokens?: number;
	/**
	 * The `input_tokens` of `message_start` when server tools (web fetch, code execution) add input later:
	 * `message_delta` then restates every count as the call's total (realworld cases
	 * `vercel:anthropic:anthropic-message-delta-input-tokens.chunks.txt`, `…anthropic-web-fetch-tool.1.chunks.txt`).
	 */
	startInputTokens?: number;
	/** `message_start`'s own `output_tokens` (recordings show 1 to 8; `message_delta` restates the total). Default 1. */
	startOutputTokens?: number;
	/** `message_start` sent twice, as a replayed stream did (realworld case `vercel:anthropic:duplicate-message-start.chunks.txt`). */
	repeatMessageStart?: boolean;
	/** `stop_details` beside a refusal (realworld case `vercel:anthropic:anthropic-refusal.chunks.txt`). */
	stopDetails?: { category: string; explanation: string };
}
