import type { ChatRequest } from './chat-model';

/**
 * Passes a streamed reply's text on to `ChatRequest.onTextDelta` across the attempts of one call. When
 * an attempt that already passed text on fails and the call is made again (a retry, or the call sent
 * once more without a refused field), the listener first hears `onTextReset`, so it never joins the
 * pieces of two attempts into one reply.
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

/** The stream listener of a request, or undefined when the request does not ask for a stream. */
export function streamedTextFor(request: ChatRequest): StreamedText | undefined {
	return request.onTextDelta ? new StreamedText(request) : undefined;
}
