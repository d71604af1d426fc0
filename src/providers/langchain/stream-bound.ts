/** How much a model stream may send without content before the call stops reading it, and the turns it gives the event loop. */
import { ProviderHttpError } from '../provider-errors';

/**
 * Pieces (events or chunks) without content in a row that end the call. Recorded real traffic has at most 13
 * (`../shared/realworld/recordings.json`: Anthropic 6 in `vercel:anthropic:anthropic-json-other-tool.1.chunks.txt`,
 * OpenAI Responses 13 in `vercel:openai/responses:openai-file-search-tool.1.chunks.txt`, chat completions 4,
 * Gemini 2): 200 leaves fifteen times that for keep-alive pings and tool-block frames.
 */
export const MAX_CONTENT_FREE_IN_A_ROW = 200;

/** Pieces without content in the whole stream that end the call (recorded real streams: at most 19 in 314 events). */
export const MAX_CONTENT_FREE_TOTAL = 1_000;

/**
 * Message starts that end the call: a stream carries one message. Anthropic has been recorded sending a second
 * `message_start` (`vercel:anthropic:duplicate-message-start.chunks.txt`, `…spliced-message-start.chunks.txt`),
 * never more; each start is merged into LangChain's chunk, so thousands of them froze the process (issue #38).
 */
export const MAX_MESSAGE_STARTS = 10;

/**
 * Pieces read between two turns of the event loop. A body that arrives in one network read is parsed and
 * handed up the SDK's and LangChain's async generators in microtasks only, which never let timers, sockets or
 * other workflows run: 5,000 small events held n8n's main thread for most of a second.
 */
export const PIECES_BETWEEN_TURNS = 100;

/** What one piece of a stream was, for the count. */
export interface StreamPiece {
	/** It carried text, reasoning or a tool call (or a piece of one). */
	content: boolean;
	/** It starts a message (Anthropic's `message_start`). */
	start?: boolean;
}

/**
 * Counts the pieces of one streamed call. `read` answers with the error to end the call with once the stream
 * has gone past a bound; the caller aborts the connection and throws it. The error is a ProviderHttpError
 * from inside the stream (no status, `inStream`), so it is not retried: the same server would send the same.
 */
export class StreamBound {
	private inARow = 0;
	private withoutContent = 0;
	private starts = 0;
	private pieces = 0;

	/**
	 * @param provider the provider's name, as the error shows it (`anthropic`, `openai`, `ollama`, …).
	 * @param unit what a piece is called in the error: the provider's `events`, or LangChain's `chunks`.
	 */
	constructor(
		private readonly provider: string,
		private readonly unit: 'events' | 'chunks',
	) {}

	/** Pieces read so far. */
	get read(): number {
		return this.pieces;
	}

	/** Counts one piece; returns the error that ends the call when this piece went past a bound. */
	count(piece: StreamPiece): ProviderHttpError | undefined {
		this.pieces++;
		if (piece.start) this.starts++;
		if (piece.content) this.inARow = 0;
		else {
			this.inARow++;
			this.withoutContent++;
		}
		if (this.starts > MAX_MESSAGE_STARTS)
			return this.error(`${this.starts} message starts`, 'a model stream carries one message');
		if (this.inARow > MAX_CONTENT_FREE_IN_A_ROW)
			return this.error(`${this.inARow} ${this.unit} in a row without content`);
		if (this.withoutContent > MAX_CONTENT_FREE_TOTAL)
			return this.error(`${this.withoutContent} ${this.unit} without content`);
		return undefined;
	}

	/** True on every PIECES_BETWEEN_TURNS-th piece: the reader should then give the event loop a turn. */
	get turnDue(): boolean {
		return this.pieces % PIECES_BETWEEN_TURNS === 0;
	}

	private error(
		what: string,
		rule = 'a model stream must send text, reasoning or a tool call',
	): ProviderHttpError {
		return new ProviderHttpError(
			`The ${this.provider} stream sent ${what}, so the call stopped reading it: ${rule}`,
			undefined,
			{ provider: this.provider, [`${this.unit}_read`]: this.pieces },
			undefined,
			true,
		);
	}
}

/** Lets timers, sockets and other workflows run before the stream is read on (a macrotask, not a microtask). */
export function giveEventLoopATurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
