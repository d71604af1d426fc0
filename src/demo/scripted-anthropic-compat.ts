import type { ChatMessage } from '../core/messages';

/**
 * Anthropic's OpenAI SDK compatibility endpoint (`https://api.anthropic.com/v1/`, chat completions), as
 * provider-behaviours.md §3 [D-a-compat] documents it: `response_format`, `reasoning_effort`, `seed` and the
 * like are ignored; `n` must be 1; `temperature` is 0–1, higher values capped; system and developer
 * messages are hoisted and joined with "\n" into one system prompt.
 */

/** A 400 for what the endpoint refuses (`n` other than 1; the exact wording is unconfirmed), or undefined. */
export function anthropicCompatRefusal(body: {
	n?: unknown;
}): { status: number; body: object } | undefined {
	if (body.n === undefined || body.n === 1) return undefined;
	const message = `n: only n=1 is supported (got ${JSON.stringify(body.n)})`;
	return {
		status: 400,
		body: { error: { message, type: 'invalid_request_error', param: 'n', code: null } },
	};
}

/** What Claude receives: one system prompt hoisted to the front, the turns in order, the temperature capped at 1. */
export function anthropicCompatView(
	body: { temperature?: unknown },
	messages: ChatMessage[],
): { messages: ChatMessage[]; effectiveTemperature?: number } {
	const system = messages
		.filter((message) => message.role === 'system')
		.map((message) => message.content);
	const turns = messages.filter((message) => message.role !== 'system');
	const temperature =
		typeof body.temperature === 'number' ? Math.min(body.temperature, 1) : undefined;
	return {
		messages: system.length ? [{ role: 'system', content: system.join('\n') }, ...turns] : turns,
		...(temperature !== undefined ? { effectiveTemperature: temperature } : {}),
	};
}
