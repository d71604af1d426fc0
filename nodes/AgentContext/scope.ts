// Conversation Scope's panel field: Shared for nodes saved before it, This Workflow for new ones (read in scope-of.ts).
import type { DisplayCondition, INodeProperties } from 'n8n-workflow';
import type { ContextScope } from '../../src/context';

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
