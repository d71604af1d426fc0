/** A generateContent request's parts besides the messages: thinking budgets, refused fields, the files' fetch. */
import type { GenerateContentParameters } from '@google/genai';
import type { ChatRequest, ReasoningEffort } from '../chat-model';
import type { FileMarkers } from '../file-body';
import type { DroppableField } from '../refused-fields';
import { ProviderHttpError } from '../provider-errors';
import { fetchKeepingFinishMessage, type RawReplyNotes } from './raw';

/**
 * `reasoning_effort` as a Gemini thinking budget in tokens (provider-behaviours.md §2: `thinkingBudget`,
 * 0 disables; 2.5 Flash takes 0–24576). `minimal` asks for the least thinking a model allows.
 */
export const GEMINI_THINKING_BUDGETS: Record<ReasoningEffort, number> = {
	minimal: 0,
	low: 1024,
	medium: 8192,
	high: 24576,
};

/**
 * What an HTTP 400 refuses that the call can do without: a user-set temperature, or the response schema (an
 * endpoint or model without `responseJsonSchema`: the call goes on with the JSON mime type alone).
 */
export function refusedField(
	error: unknown,
	request: ChatRequest,
	dropped: ReadonlySet<DroppableField>,
): DroppableField | undefined {
	if (!(error instanceof ProviderHttpError) || error.status !== 400 || error.inStream)
		return undefined;
	if (
		request.temperature !== undefined &&
		!dropped.has('temperature') &&
		/temperature/i.test(error.message)
	)
		return 'temperature';
	const refusesSchema = /response_?json_?schema|responseSchema|response_schema/i.test(
		error.message,
	);
	return refusesSchema &&
		request.responseFormat.type === 'json_schema' &&
		!dropped.has('json_schema')
		? 'json_schema'
		: undefined;
}

/** The call's parameters with a fetch that notes what the SDK drops (see fetchKeepingFinishMessage) and streams files. */
export function noting(
	parameters: GenerateContentParameters,
	notes: RawReplyNotes,
	markers: FileMarkers,
): GenerateContentParameters {
	const fetch = fetchKeepingFinishMessage(notes, markers);
	return { ...parameters, config: { ...parameters.config, httpOptions: { fetch } } };
}
