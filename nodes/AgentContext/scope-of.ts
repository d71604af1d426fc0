// The item's Conversation Scope as a session request carries it: the panel's choice and, for This Workflow, n8n's workflow id.
import { ConfigError } from '../../src/run-path';
import type { ContextScope } from '../../src/context';
import type { PanelContext } from './session-requests';

/** The item's scope and, for This Workflow, the workflow's id: what every session request of the node carries. */
export function scopeOf(
	context: PanelContext,
	itemIndex: number,
	lastShared: number,
): { contextScope: ContextScope; workflowId?: string } {
	const fallback = context.getNode().typeVersion > lastShared ? 'workflow' : 'shared';
	const contextScope = context.getNodeParameter(
		'contextScope',
		itemIndex,
		fallback,
	) as ContextScope;
	const id = context.getWorkflow().id;
	if (contextScope !== 'workflow') return { contextScope };
	if (id === undefined || id === '')
		throw new ConfigError(
			'contextScope',
			'Conversation Scope is This Workflow, and this workflow has no ID yet',
			'Save the workflow, or set Conversation Scope to Shared by Every Workflow.',
		);
	return { contextScope, workflowId: String(id) };
}
