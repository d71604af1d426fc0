import type { ChatMessage } from '../core/messages';

/** OpenAI Chat Completions `messages`: the neutral form as it is (OpenAI accepts any role order). */
export interface OpenAiChatFormat {
	messages: ChatMessage[];
}

/** Gemini `generateContent` request parts: `contents` alternate user/model, system text goes apart. */
export interface GeminiChatFormat {
	contents: Array<{ role: 'user' | 'model'; parts: Array<{ text: string }> }>;
	systemInstruction?: { parts: Array<{ text: string }> };
}

/** Anthropic Messages request parts: `messages` alternate user/assistant and start with user. */
export interface AnthropicChatFormat {
	system?: string;
	messages: Array<{ role: 'user' | 'assistant'; content: string }>;
}

export interface ProviderFormats {
	openai: OpenAiChatFormat;
	gemini: GeminiChatFormat;
	anthropic: AnthropicChatFormat;
}

/**
 * Stands in for the user's side when a conversation would start with the assistant (for example when
 * the window cut off the user message before it): Anthropic rejects such a request and Gemini
 * answers it poorly, while dropping the assistant message would lose what it said.
 */
export const CONTINUED_CONVERSATION_PLACEHOLDER = '(continuing an earlier conversation)';

/** Separates same-role messages merged into one Anthropic message. */
const MERGE_SEPARATOR = '\n\n';

/** The same conversation in every provider's request shape. */
export function toProviderFormats(messages: readonly ChatMessage[]): ProviderFormats {
	return {
		openai: toOpenAiFormat(messages),
		gemini: toGeminiFormat(messages),
		anthropic: toAnthropicFormat(messages),
	};
}

/** A copy of the messages, reduced to `role` and `content`. */
export function toOpenAiFormat(messages: readonly ChatMessage[]): OpenAiChatFormat {
	return { messages: messages.map(({ role, content }) => ({ role, content })) };
}

/**
 * System messages become `systemInstruction` (one part each); consecutive same-role messages become
 * one content with one part per message, since Gemini expects user and model to alternate.
 */
export function toGeminiFormat(messages: readonly ChatMessage[]): GeminiChatFormat {
	const { systemTexts, turns } = toAlternatingTurns(messages);
	const format: GeminiChatFormat = {
		contents: turns.map((turn) => ({
			role: turn.role === 'assistant' ? 'model' : 'user',
			parts: turn.texts.map((text) => ({ text })),
		})),
	};
	if (systemTexts.length > 0)
		format.systemInstruction = { parts: systemTexts.map((text) => ({ text })) };
	return format;
}

/**
 * System messages are joined into `system`; consecutive same-role messages are joined into one
 * message (blank line between), since Anthropic requires user and assistant to alternate.
 */
export function toAnthropicFormat(messages: readonly ChatMessage[]): AnthropicChatFormat {
	const { systemTexts, turns } = toAlternatingTurns(messages);
	const format: AnthropicChatFormat = {
		messages: turns.map((turn) => ({ role: turn.role, content: turn.texts.join(MERGE_SEPARATOR) })),
	};
	if (systemTexts.length > 0) format.system = systemTexts.join(MERGE_SEPARATOR);
	return format;
}

interface AlternatingTurn {
	role: 'user' | 'assistant';
	texts: string[];
}

/**
 * The rules both alternating providers share:
 * - every system message, wherever it is, goes to the system text (neither API has a system role in
 *   the turns), in order;
 * - messages with only whitespace are dropped (both APIs reject empty text);
 * - consecutive messages of one role are grouped;
 * - a conversation that would start with the assistant gets the placeholder user message first.
 */
function toAlternatingTurns(messages: readonly ChatMessage[]): {
	systemTexts: string[];
	turns: AlternatingTurn[];
} {
	const systemTexts: string[] = [];
	const turns: AlternatingTurn[] = [];
	for (const message of messages) {
		if (message.content.trim() === '') continue;
		if (message.role === 'system') {
			systemTexts.push(message.content);
			continue;
		}
		const last = turns[turns.length - 1];
		if (last && last.role === message.role) last.texts.push(message.content);
		else turns.push({ role: message.role, texts: [message.content] });
	}
	if (turns.length > 0 && turns[0].role === 'assistant') {
		turns.unshift({ role: 'user', texts: [CONTINUED_CONVERSATION_PLACEHOLDER] });
	}
	return { systemTexts, turns };
}
