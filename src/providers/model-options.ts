// The options each model adapter is built with, and their names: the adapter refuses an unknown one (`baseURL`), never ignores it.
import type { OptionNames } from '../core/known-options';

/** Connection settings of an OpenAI or OpenAI-compatible endpoint. */
export interface OpenAiModelOptions {
	apiKey: string;
	/** e.g. https://api.openai.com/v1 (default), or any OpenAI-compatible server's /v1 URL. */
	baseUrl?: string;
	/** Retries of 408/409/429/5xx and connection errors, with abortable waits (default 2). */
	maxRetries?: number;
}

/** Connection settings of the Gemini API. */
export interface GeminiModelOptions {
	apiKey: string;
	/** Overrides https://generativelanguage.googleapis.com (e.g. a proxy or a local test server). */
	baseUrl?: string;
	/** Retries of 408/429/5xx and connection errors, with abortable waits (default 2). */
	maxRetries?: number;
}

/** Options of the LangChain adapter. */
export interface LangChainChatModelOptions {
	/** The node input the model came from, for the error when it is not a chat model (default "Chat Model"). */
	input?: string;
	/**
	 * Retries of 408/409/429/5xx made here, on top of the class's own (default 0: an n8n sub-node retries as
	 * its own Max Retries option says, and retrying again here would multiply the requests).
	 */
	maxRetries?: number;
}

/**
 * Each adapter's option names, which its constructor hands to checkKnownOptions (e.g. the openai SDK's `baseURL` is
 * refused, naming it); `satisfies` keeps them and the types above from drifting apart. A table, not a function: a
 * model made on a request's route runs the one check in core, not a call into this file (#49).
 */
export const MODEL_OPTION_NAMES = {
	OpenAiChatModel: {
		apiKey: true,
		baseUrl: true,
		maxRetries: true,
	} satisfies OptionNames<OpenAiModelOptions>,
	GeminiChatModel: {
		apiKey: true,
		baseUrl: true,
		maxRetries: true,
	} satisfies OptionNames<GeminiModelOptions>,
	LangChainChatModel: {
		input: true,
		maxRetries: true,
	} satisfies OptionNames<LangChainChatModelOptions>,
};
