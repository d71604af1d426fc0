import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { AgentEvent, AgentEventListener } from '../../../../src/run-path';
import { planList } from '../../../shared/plan-list';

/** The chunk calls of n8n ≥ 1.105; older versions have neither, and a run there streams nothing. */
type StreamingFunctions = Pick<IExecuteFunctions, 'isStreaming' | 'sendChunk'>;

/** One item's run as n8n chunks: `begin` is sent when it opens, `end` by `close`. */
export interface ItemStream {
	onEvent: AgentEventListener;
	/** Options → Stream Only Checked Answers (version 2): the answer goes out once checked, in one piece. */
	streamAnswer: 'as-written' | 'checked';
	/** Ends the item's message; `ending` (a run without an answer: why, in the chat's one sentence) goes last. */
	close(ending?: string): void;
}

/**
 * The readable text a chat shows for an event, or undefined for events it need not show. Steps are one
 * short line each between blank lines, so the answer text that follows reads as a paragraph of its own.
 */
export function chunkText(event: AgentEvent): string | undefined {
	switch (event.type) {
		case 'plan':
			// Plan mode (issue #51): the whole plan as a numbered list, before its steps' own lines.
			return `\n[plan]\n${planList(event.steps.map(({ summary, ...step }) => ({ ...step, text: summary })))}\n\n`;
		case 'action':
			return `\n[${event.summary}]\n`;
		case 'observation':
			return `[${event.tool} ${event.ok ? 'returned' : 'failed'}: ${event.summary}]\n\n`;
		case 'answer_delta':
			return event.text;
		case 'answer_restart':
			return `\n[the answer restarts: ${event.reason}]\n\n`;
		default:
			return undefined;
	}
}

/**
 * Opens the item's stream when the execution streams (a Webhook in Response Mode Streaming, a Chat
 * Trigger in streaming mode) and the Stream Response option is on; undefined otherwise, and then the
 * run behaves exactly as without streaming. Like n8n's AI Agent it sends `begin`, `item`s and `end` per
 * run, so Chat Hub shows each item's run as one message.
 */
export function openItemStream(
	context: IExecuteFunctions,
	itemIndex: number,
	options = context.getNodeParameter('options', itemIndex, {}) as IDataObject,
): ItemStream | undefined {
	if (options.streamResponse === false) return undefined;
	const functions = context as Partial<StreamingFunctions>;
	if (typeof functions.isStreaming !== 'function' || typeof functions.sendChunk !== 'function')
		return undefined;
	if (!functions.isStreaming.call(context)) return undefined;
	const sendChunk = functions.sendChunk;
	const send = (type: 'begin' | 'item' | 'end', index: number, content?: string) => {
		// n8n-core's sendChunk is async although typed void: a chunk that cannot be delivered (the client
		// went away) must neither fail the run nor surface as an unhandled rejection.
		try {
			const delivered: unknown = sendChunk.call(context, type, index, content);
			if (delivered instanceof Promise) delivered.catch(() => undefined);
		} catch {
			// As above: the stream is a view of the run, not part of it.
		}
	};
	send('begin', itemIndex);
	return {
		streamAnswer: options.streamAnswerChecked === true ? 'checked' : 'as-written',
		onEvent(event) {
			const text = chunkText(event);
			if (text !== undefined && text !== '') send('item', itemIndex, text);
		},
		close(ending) {
			if (ending) send('item', itemIndex, ending);
			send('end', itemIndex);
		},
	};
}
