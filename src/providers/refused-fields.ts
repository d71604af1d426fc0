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

/** What a call is made again with: its request, the model object's refusals, one attempt, and how a refusal reads. */
export interface RefusedFieldRetry {
	request: ChatRequest;
	/** The refusals of one model object, so its later calls leave those fields out at once. */
	remembered: Set<DroppableField>;
	attempt: (dropped: ReadonlySet<DroppableField>) => Promise<ChatResponse>;
	/** The field `error` says the endpoint refused, if any. */
	refusedField: (
		error: unknown,
		dropped: ReadonlySet<DroppableField>,
	) => DroppableField | undefined;
}

/**
 * After an attempt made without the fields in `dropped` (a copy of `remembered` taken before it) failed with
 * `error`: when the endpoint refused a field the call can do without, drops that field and makes the call again,
 * once per field, with a notice on the response saying so; else throws `error`. The first attempt is the
 * adapter's own (`attempt(new Set(remembered))`), so a call the endpoint takes never comes here (issue #49).
 */
export async function callAgainWithoutRefused(
	error: unknown,
	dropped: ReadonlySet<DroppableField>,
	{ request, remembered, attempt, refusedField }: RefusedFieldRetry,
): Promise<ChatResponse> {
	const notices: string[] = [];
	for (;;) {
		const field = refusedField(error, dropped);
		if (!field || dropped.has(field) || request.signal.aborted) throw error;
		remembered.add(field);
		notices.push(
			`the endpoint rejected ${field} (${String((error as Error)?.message).slice(0, 200)}); retried without ${WITHOUT[field]}`,
		);
		dropped = new Set(remembered);
		try {
			const response = await attempt(dropped);
			return { ...response, notices: [...notices, ...(response.notices ?? [])] };
		} catch (next) {
			error = next;
		}
	}
}
