/** The finish-reason maps of the providers met only through LangChain classes: Ollama's done_reason and the OpenAI Responses API's status. */
import type { ModelFinishReason } from './chat-model';

/** Ollama's done_reason (`stop`, `length`; `load`/`unload` are not replies: provider-behaviours.md §4 [OL-api]) in the engine's terms. */
export function mapOllamaDoneReason(reason: unknown): ModelFinishReason {
  if (reason === 'stop') return 'stop';
  if (reason === 'length') return 'length';
  return 'other';
}

/** The Responses API's `status` and `incomplete_details.reason` in the engine's terms. */
export function mapResponsesStatus(status: unknown, incomplete: unknown): ModelFinishReason {
  if (status === 'completed') return 'stop';
  const reason = (incomplete as { reason?: unknown } | null | undefined)?.reason;
  if (status === 'incomplete' && reason === 'max_output_tokens') return 'length';
  if (status === 'incomplete' && reason === 'content_filter') return 'content_filter';
  return 'other';
}
