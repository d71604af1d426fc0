import type { IDataObject, IExecuteFunctions, IWorkflowNodeContext } from 'n8n-workflow';

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
