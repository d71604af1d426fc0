// Conversation Scope: the panel field (shared for nodes saved before it, This Workflow for new ones) and its reading.
import type { DisplayCondition, INodeProperties } from 'n8n-workflow';
import type { ContextScope } from '../../src/context';
import type { PanelContext } from './session-requests';

/** Agent Context's last version whose Conversation Scope defaults to Shared (version 3 adds This Workflow). */
export const LAST_SHARED_CONTEXT_VERSION = 2;
/** Agent Context Memory's likewise (its version 2 defaults to This Workflow). */
export const LAST_SHARED_MEMORY_VERSION = 1;

const SCOPE_CHOICES = [
	{
		name: 'Shared by Every Workflow',
		value: 'shared',
		description:
			'The session ID alone names the conversation: any workflow (or caller) that sends it reads and extends it',
	},
	{
		name: 'This Workflow',
		value: 'workflow',
		description:
			"The workflow's ID is part of the key: another workflow with the same session ID has its own conversation",
	},
];

/**
 * The field, once per default: Shared for versions up to `lastShared` (saved workflows keep their keys), This
 * Workflow from the next version on (what n8n gives a newly added node).
 */
export function conversationScopeFields(lastShared: number): INodeProperties[] {
	const field = (scope: ContextScope, versions: DisplayCondition): INodeProperties => ({
		displayName: 'Conversation Scope',
		name: 'contextScope',
		type: 'options',
		noDataExpression: true,
		options: SCOPE_CHOICES,
		default: scope,
		description:
			'Whether the session ID is the whole key (shared with every workflow that sends it) or only within this workflow',
		displayOptions: { show: { '@version': [versions] } },
	});
	return [
		field('shared', { _cnd: { lte: lastShared } }),
		field('workflow', { _cnd: { gte: lastShared + 1 } }),
	];
}

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
	return { contextScope, ...(id === undefined || id === '' ? {} : { workflowId: String(id) }) };
}
