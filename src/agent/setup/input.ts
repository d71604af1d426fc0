/** The run's input: the prompt and the conversation checked and split into history and the message to answer. */
import { parseMessages, type ChatMessage } from '../../core/messages';
import { InputError } from '../../core/input-error';

/**
 * Checks the run input and splits it into the history and the new user message (the one this run answers).
 * `messages` may be an array or a JSON string of one, as n8n expressions often produce text.
 */
export function normaliseInput(
	prompt: unknown,
	messages: unknown,
): { history: ChatMessage[]; newUserMessage: ChatMessage } {
	if (prompt !== undefined && prompt !== null && typeof prompt !== 'string') {
		throw new InputError(
			'prompt',
			`prompt must be text, but it was ${Array.isArray(prompt) ? 'an array' : typeof prompt}`,
		);
	}
	const promptText = typeof prompt === 'string' && prompt.trim() !== '' ? prompt : undefined;
	const history =
		messages === undefined || messages === null || messages === '' ? [] : parseMessages(messages);

	if (promptText !== undefined) {
		const newUserMessage: ChatMessage = { role: 'user', content: promptText };
		return { history: [...history, newUserMessage], newUserMessage };
	}
	if (history.length === 0) {
		throw new InputError(
			'prompt',
			"no input: set prompt to the user's request, or messages_json to the conversation (an array of {role, content})",
		);
	}
	const last = history[history.length - 1];
	if (last.role !== 'user') {
		throw new InputError(
			'messages_json',
			`messages_json must end with a user message (the request to answer), but it ends with a ${last.role} message; append the user's message or set prompt`,
		);
	}
	return { history, newUserMessage: last };
}

/**
 * What the people behind a run wrote, for tools that must not be steered by observations: the
 * instructions, the conversation's system text and every user turn. Assistant turns are left out: they
 * may repeat what a tool returned.
 */
export function trustedTextOf(
	history: readonly ChatMessage[],
	newUserMessage: ChatMessage,
	developerText?: string,
): string {
	const written = history
		.filter((message) => message.role !== 'assistant')
		.map((message) => message.content);
	return [developerText ?? '', ...written, newUserMessage.content].join('\n');
}
