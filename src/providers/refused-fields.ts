import type { ChatRequest, ChatResponse } from './chat-model';

/**
 * Request fields an endpoint may refuse that a call can do without: `json_schema` (the compiled protocol
 * schema: the call falls back to plain JSON mode), `response_format` (an endpoint without JSON mode), a
 * user-set `temperature` (GPT-5 and o-series models, and some Gemini models, accept only their default)
 * on a streamed call, `stream_options` (compatible servers that predate it) and `prompt_cache_key` (compatible
 * servers that refuse fields they do not know).
 */
export type DroppableField =
	| 'json_schema'
	| 'response_format'
	| 'temperature'
	| 'stream_options'
	| 'prompt_cache_key';

/** What the call does without each droppable field, for the notice. */
const WITHOUT: Record<DroppableField, string> = {
	json_schema: 'the output schema (plain JSON mode instead)',
	response_format: 'JSON mode',
	temperature: "temperature (the model's default applies)",
	stream_options: 'stream_options (the stream reports no token usage)',
	prompt_cache_key:
		'prompt_cache_key (prompt caching, where the endpoint has it, still matches by prefix)',
};

/**
 * Makes a call, and when the endpoint refuses a field the call can do without (`refusedField` names it),
 * drops that field and makes the call again, once per field, with a notice on the response saying so.
 * `remembered` keeps the refusals of one model object, so its later calls leave those fields out at once.
 */
export async function callDroppingRefusedFields(
	request: ChatRequest,
	remembered: Set<DroppableField>,
	attempt: (dropped: ReadonlySet<DroppableField>) => Promise<ChatResponse>,
	refusedField: (
		error: unknown,
		dropped: ReadonlySet<DroppableField>,
	) => DroppableField | undefined,
): Promise<ChatResponse> {
	const notices: string[] = [];
	for (;;) {
		const dropped = new Set(remembered);
		try {
			const response = await attempt(dropped);
			return notices.length
				? { ...response, notices: [...notices, ...(response.notices ?? [])] }
				: response;
		} catch (error) {
			const field = refusedField(error, dropped);
			if (!field || dropped.has(field) || request.signal.aborted) throw error;
			remembered.add(field);
			notices.push(
				`the endpoint rejected ${field} (${String((error as Error)?.message).slice(0, 200)}); retried without ${WITHOUT[field]}`,
			);
		}
	}
}
