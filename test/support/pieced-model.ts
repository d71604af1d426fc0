/** A model that streams scripted replies in given pieces through the contract's onTextDelta, as a streaming adapter does. */
import type { AgentEvent } from '../../src/agent/base/events';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/providers/chat-model';
import type { TokenUsage } from '../../src/core/usage';

/** Each reply's pieces; `usage` is what the model reports (default: a small reported usage). */
export interface PiecedReply {
	pieces: string[];
	usage?: TokenUsage;
}

/**
 * The model, the requests it received, and how many answer_delta events `events` held when each reply's
 * last piece had been sent: streaming that waits for the reply's end shows 0 there.
 */
export function piecedModel(replies: PiecedReply[], events: AgentEvent[], secrets?: string[]) {
	const requests: ChatRequest[] = [];
	const deltasBeforeEnd: number[] = [];
	const model: ChatModel = {
		provider: 'pieces',
		secrets,
		async generate(request: ChatRequest): Promise<ChatResponse> {
			const reply = replies[requests.length];
			requests.push(request);
			if (!reply) throw new Error(`no reply scripted for call ${requests.length}`);
			for (const piece of reply.pieces) {
				request.onTextDelta?.(piece);
				await new Promise((resolve) => setImmediate(resolve));
			}
			deltasBeforeEnd.push(events.filter((event) => event.type === 'answer_delta').length);
			return {
				text: reply.pieces.join(''),
				usage: reply.usage ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				finishReason: 'stop',
			};
		},
	};
	return { model, requests, deltasBeforeEnd };
}

/** Text in pieces of `size` characters. */
export function inPieces(text: string, size: number): string[] {
	const pieces: string[] = [];
	for (let index = 0; index < text.length; index += size)
		pieces.push(text.slice(index, index + size));
	return pieces;
}

/** The answer text the events stream, joined. */
export const streamedText = (events: AgentEvent[]) =>
	events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : [])).join('');

/** The answer_delta texts. */
export const deltasOf = (events: AgentEvent[]) =>
	events.flatMap((event) => (event.type === 'answer_delta' ? [event.text] : []));
