// Persist's busy token: prepare's, found without wiring, since Agent Core does not pass prepare's fields on.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** Whether an upstream node is an Agent Context whose operation is prepare (prepare is the default operation). */
function isPrepare(node: { type: string; parameters?: IDataObject }): boolean {
	return (
		/(^|\.)agentContext$/.test(node.type) && (node.parameters?.operation ?? 'prepare') === 'prepare'
	);
}

/**
 * The lock token of the prepare this persist answers: Options → Busy Lock From Prepare when set; else the item's own
 * `busy_token` (an item that came straight from prepare); else the `busy_token` of the item of the nearest Agent
 * Context prepare upstream that this item is paired with (n8n follows the pairing back through Agent Core, as
 * `$('Load History').item` does). Undefined when there is none (a prepare without a busy policy).
 */
export function busyTokenOf(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): string | undefined {
	if (typeof options.busyLock === 'string' && options.busyLock !== '') return options.busyLock;
	const own = context.getInputData()[itemIndex]?.json.busy_token;
	if (typeof own === 'string' && own !== '') return own;
	const parents = context.getParentNodes(context.getNode().name, { includeNodeParameters: true });
	for (const parent of parents.filter((node) => !node.disabled && isPrepare(node))) {
		try {
			const token = (
				context.getWorkflowDataProxy(itemIndex).$(parent.name).item?.json as IDataObject | undefined
			)?.busy_token;
			if (typeof token === 'string' && token !== '') return token;
		} catch {
			// No item of that node is paired with this one (another branch, or it did not run): look further up.
		}
	}
	return undefined;
}
