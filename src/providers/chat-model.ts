/** The provider contract: what the engine sends a model and what it gets back, in the engine's neutral form. */
import type { ChatMessage } from '../core/messages';
import type { TokenUsage } from '../core/usage';

/** Reasoning effort as the engine names it; each adapter maps it to its provider's setting. */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/**
 * Free text; any JSON object (the provider's JSON mode); or JSON matching `schema`, named `name`, where the
 * provider has structured output (others fall back to their JSON mode).
 */
export type ResponseFormat =
	| { type: 'text' }
	| { type: 'json_object' }
	| {
			type: 'json_schema';
			name: string;
			schema: Record<string, unknown>;
			/** The same schema in OpenAI's strict subset, when it converts: sent with `strict: true` where the provider has it. */
			strictSchema?: Record<string, unknown>;
	  };

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	/** Sent only when set; absent means the model's own default. */
	temperature?: number;
	/** Cap on the reply's tokens (reasoning included where the provider counts it so); absent = the provider's default. */
	maxOutputTokens?: number;
	/** How hard a reasoning model thinks; absent = the model's default. */
	reasoningEffort?: ReasoningEffort;
	/** How the provider should shape replies; the engine's text protocol stays the contract whatever it does. */
	responseFormat: ResponseFormat;
	/** Aborted by the per-call or whole-run timeout; every wait of the adapter (retries included) ends with it. */
	signal: AbortSignal;
	/**
	 * When the call's own time (`single_call_timeout`) runs out, in ms since the epoch: a retry the provider
	 * asks to begin later than this is not waited for (see withRetries). Absent = no known deadline.
	 */
	deadline?: number;
	/**
	 * When set, the adapter streams the reply (where the provider can) and calls this with each piece of
	 * reply text as it arrives, in order; the returned ChatResponse still holds the whole text. Pieces of
	 * an attempt that later failed and was retried are followed by `onTextReset` before the new attempt's.
	 */
	onTextDelta?: (delta: string) => void;
	/** Called when text already passed to `onTextDelta` is void (the attempt failed and is retried). */
	onTextReset?: () => void;
}

/**
 * Why the provider stopped generating, normalised: `stop` (a natural end), `length` (cut at the
 * output-token limit), `content_filter` (withheld by the provider's safety filter), `other`.
 */
export type ModelFinishReason = 'stop' | 'length' | 'content_filter' | 'other';

export interface ChatResponse {
	text: string;
	/** Usage as the provider reported it; zeros when it reported none. The engine sanitises it. */
	usage: TokenUsage;
	/**
	 * Whether the provider sent usage at all: true when it sent a usage object, even one without counts (a
	 * blocked Gemini prompt's `usageMetadata` holds none: its report is 0); false when it sent none (a stream
	 * without the usage chunk), and only then does the engine estimate. Absent (a library user's model): zero
	 * counts are taken as no report.
	 */
	usageReported?: boolean;
	/** Normalised; absent when the provider did not say. */
	finishReason?: ModelFinishReason;
	/**
	 * The provider's own words on why it withheld or stopped the reply (Gemini `finishMessage` or
	 * `promptFeedback.blockReasonMessage`, an OpenAI `refusal`), else its reason's name; the engine shows it
	 * in the step's error and the run's `stop_detail`.
	 */
	finishMessage?: string;
	/**
	 * Names of tools the model tried to call through the provider's native function calling instead of
	 * the text protocol (OpenAI `tool_calls` with `content: null`, Gemini `functionCall` parts).
	 */
	nativeToolCalls?: string[];
	/** Things the adapter did that the trace should show (e.g. "retried without response_format"). */
	notices?: string[];
	/**
	 * The model's reasoning ("thinking") text, when the provider returns it apart from the reply (Anthropic
	 * and Gemini thinking blocks, OpenAI Responses reasoning summaries, DeepSeek `reasoning_content`); never
	 * part of `text`.
	 */
	reasoning?: string;
}

/** The provider contract: the engine never imports a vendor SDK, only this. */
export interface ChatModel {
	readonly provider: string;
	/**
	 * The model this object always calls, when it is bound to one (a connected n8n chat model, or a model
	 * created with `model`): the engine asks for it and records it instead of `config.model`.
	 */
	readonly modelName?: string;
	/** Values the engine must redact from every output (e.g. this model's API key). */
	readonly secrets?: readonly string[];
	generate(request: ChatRequest): Promise<ChatResponse>;
	/** Model ids the endpoint offers, when it can list them. */
	listModels?(signal?: AbortSignal): Promise<string[]>;
}

/**
 * A provider answered, but not with a model reply (an HTML page, an SSE stream on a plain call, JSON of
 * another shape): the run ends `llm_error` with this message instead of treating it as an empty reply.
 */
export class ProviderResponseError extends Error {
	override readonly name = 'ProviderResponseError';
}

/** A short, single-line excerpt of an unexpected provider body for an error message. */
export function describeUnexpectedBody(body: unknown): string {
	const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? String(body));
	const excerpt = text.slice(0, 160).replace(/\s+/g, ' ').trim();
	return excerpt === ''
		? 'an empty body'
		: `${JSON.stringify(excerpt)}${text.length > 160 ? '…' : ''}`;
}
