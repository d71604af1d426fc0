/**
 * The raw event stream of @langchain/anthropic's ChatAnthropic, read beside LangChain's chunks: when it streams,
 * its chunks lose what the provider said about usage and the stop reason.
 */
import { AnthropicStreamReader, anthropicEventPiece } from './anthropic';
import { giveEventLoopATurn, StreamBound } from './stream-bound';

/**
 * The part of ChatAnthropic this reads (1.5.6, as n8n 2.41.1 ships it): `_streamResponseChunks` gets its
 * event stream from `createStreamWithRetry(payload, options)` — the Anthropic SDK's Stream, an async
 * iterable of the parsed events with a `controller` to abort.
 */
/** The SDK's Stream as read here: its events, and the controller that aborts its request. */
type AnthropicEventStream = AsyncIterable<unknown> & { controller?: { abort?(): void } };

interface AnthropicStreamingModel {
	createStreamWithRetry(request: unknown, options?: unknown): Promise<AnthropicEventStream>;
}

/** ChatAnthropic or a subclass, recognised by the method it streams through (typed structurally: n8n's copy is not ours). */
export function isAnthropicStreamingModel(model: object): model is AnthropicStreamingModel {
	return typeof (model as { createStreamWithRetry?: unknown }).createStreamWithRetry === 'function';
}

/**
 * A view of `model` for one streamed call whose events also reach `reader`. @langchain/anthropic 1.5.6 turns
 * `message_delta` into a chunk with the stop reason in `additional_kwargs` and only `output_tokens` as usage,
 * which LangChain's merge adds to `message_start`'s own `output_tokens` and `input_tokens`: completion tokens
 * 1–8 too high, the input restated after server tools or caching lost, a repeated `message_start` counted
 * twice (issue #27, item 1). The view is a fresh object whose prototype is the model, so the model itself
 * (shared by every item and run of the n8n node) is never changed, and its client is reused.
 *
 * The events are also counted against `bound` here, the lowest layer the adapter holds: past a bound the SDK's
 * connection is aborted and the bound's error thrown, before ChatAnthropic makes the event a chunk and
 * LangChain merges it (issue #38: 5,000 `message_start` events froze the process in that merge).
 */
export function withEventTap<T extends AnthropicStreamingModel>(
	model: T,
	reader: AnthropicStreamReader,
	bound: StreamBound,
): T {
	const original = model.createStreamWithRetry;
	const view = Object.create(model) as T;
	Object.defineProperty(view, 'createStreamWithRetry', {
		value: async (request: unknown, options?: unknown) => {
			const stream = await original.call(model, request, options);
			return {
				controller: stream.controller,
				async *[Symbol.asyncIterator]() {
					for await (const event of stream) {
						const error = bound.count(anthropicEventPiece(event));
						if (error) {
							stream.controller?.abort?.();
							throw error;
						}
						reader.read(event);
						yield event;
						if (bound.turnDue) await giveEventLoopATurn();
					}
				},
			};
		},
	});
	return view;
}

export { AnthropicStreamReader };
