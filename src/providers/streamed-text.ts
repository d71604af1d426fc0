import type { ChatRequest } from './chat-model';

/**
 * Passes a streamed reply's text on to `ChatRequest.onTextDelta` across the attempts of one call. When
 * an attempt that already passed text on fails and the call is made again (a retry, or the call sent
 * once more without a refused field), the listener first hears `onTextReset`, so it never joins the
 * pieces of two attempts into one reply. Made only for a request that asks for a stream (`onTextDelta`):
 * a call without one never enters this file.
 */
export class StreamedText {
	private passedOnSinceReset = false;

	constructor(private readonly request: Pick<ChatRequest, 'onTextDelta' | 'onTextReset'>) {}

	/** Call at the start of every attempt. */
	beginAttempt(): void {
		if (!this.passedOnSinceReset) return;
		this.passedOnSinceReset = false;
		this.request.onTextReset?.();
	}

	/** One piece of reply text, in arrival order; empty pieces are not passed on. */
	passOn(piece: string): void {
		if (piece === '') return;
		this.passedOnSinceReset = true;
		this.request.onTextDelta?.(piece);
	}
}
