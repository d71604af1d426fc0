// The items a node runs over: the per-item loop both nodes share, and reading a field's value for one item.
import {
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IWorkflowNodeContext,
} from 'n8n-workflow';
import { sharedFieldName, toNodeError, type FieldNamer } from './node-errors';

/** Options → Batch Processing: how many items run at once, and a pause between batches. */
export interface Batching {
	/** Items run at the same time; 1 runs them one after another. */
	size: number;
	/** Milliseconds to wait between batches (e.g. to stay under a provider's rate limit). */
	delayMs: number;
}

export const ONE_AT_A_TIME: Batching = { size: 1, delayMs: 0 };

/**
 * The per-item loop both nodes share: one output item per input item, in input order and paired with it;
 * under continueOnFail() an item's error becomes `{ error }` for that item and the others go on. With a
 * batch size above 1, that many items run at once (as n8n's AI Agent does with Batch Processing); each
 * batch finishes before the next starts, and without continueOnFail() the batch's first failed item (in
 * input order) fails the node once its batch is done. An engine error's fix names its field as `nameOf` says
 * (the node's panel).
 */
export async function mapItems(
	context: IExecuteFunctions,
	run: (itemIndex: number) => Promise<INodeExecutionData>,
	batching: Batching = ONE_AT_A_TIME,
	nameOf: FieldNamer = sharedFieldName,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	const count = context.getInputData().length;
	const size = Math.max(1, Math.floor(batching.size) || 1);
	for (let start = 0; start < count; start += size) {
		if (start > 0 && batching.delayMs > 0) await sleep(batching.delayMs);
		const indexes = Array.from(
			{ length: Math.min(size, count - start) },
			(_, offset) => start + offset,
		);
		const settled = await Promise.allSettled(indexes.map((itemIndex) => run(itemIndex)));
		settled.forEach((outcome, offset) => {
			const itemIndex = indexes[offset];
			if (outcome.status === 'fulfilled') {
				output.push(outcome.value);
				return;
			}
			const nodeError = toNodeError(context, outcome.reason, itemIndex, nameOf);
			if (!context.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
		});
	}
	return output;
}

/**
 * The default expressions of both nodes' fields (over the item's `$json`), each written again in
 * JavaScript. n8n 2.x evaluates every expression in an isolate, about 2.5 ms of its main thread each
 * (bench:webhook's profile), and every item evaluated these; a field holding exactly one of them is
 * computed here instead, with the same value (test/nodes/AgentCore/panel/default-expressions-node.test.ts runs item shapes
 * through n8n's engine both ways). Keyed by the expression's text, which description.ts owns.
 */
const IN_JAVASCRIPT: Record<string, (json: IDataObject) => unknown> = {
	// Agent Core's Prompt, Agent Context's User Message.
	'={{ $json.chatInput ?? $json.body?.prompt ?? $json.prompt }}': (json) =>
		json.chatInput ?? (json.body as IDataObject | undefined)?.prompt ?? json.prompt,
	// Agent Core's Session ID.
	'={{ $json.session_id ?? $json.sessionId ?? "" }}': (json) =>
		json.session_id ?? json.sessionId ?? '',
	// Agent Context's Session ID.
	'={{ $json.session_id ?? $json.body?.session_id ?? $json.sessionId }}': (json) =>
		json.session_id ?? (json.body as IDataObject | undefined)?.session_id ?? json.sessionId,
	// Agent Context's Messages (persist).
	'={{ $json.messages }}': (json) => json.messages,
};

/**
 * A field's value for this item: a known default expression computed directly, any other expression as n8n
 * resolves it, and a plain value as it is (read once, without n8n resolving anything).
 */
export function readField(
	context: IWorkflowNodeContext & Pick<IExecuteFunctions, 'getInputData'>,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	const raw = context.getNodeParameter(name, itemIndex, fallback, { rawExpressions: true });
	if (typeof raw !== 'string' || !raw.startsWith('=')) return raw;
	const compute = IN_JAVASCRIPT[raw];
	// A sub-node has no input items of its own ($json is its root node's item): n8n resolves the expression there.
	const json = context.getInputData()[itemIndex]?.json;
	if (compute && json) return compute(json);
	return context.getNodeParameter(name, itemIndex, fallback);
}
