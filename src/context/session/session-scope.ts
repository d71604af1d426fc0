// Whose conversation a session id names: every workflow's (`shared`) or one workflow's (`workflow`); the one place the scope enters a key.
import { ConfigError } from '../../core/config-error';
import { InputError } from '../../core/input-error';

/** `shared`: the session id alone is the key (n8n's memory nodes do the same); `workflow`: the workflow's id is in it too. */
export const CONTEXT_SCOPES = ['shared', 'workflow'] as const;
export type ContextScope = (typeof CONTEXT_SCOPES)[number];

/**
 * How a workflow-scoped session starts, after the key prefix. A shared session id may not start with it, so no
 * shared id a caller sends can name a workflow's session; the workflow id's length comes next, so no workflow
 * id and session id can be split another way (`{wf}3:123:abc` is workflow `123`, session `abc`, and nothing else).
 */
export const WORKFLOW_SCOPE_MARK = '{wf}';

/**
 * The session's part of its store key (the key prefix goes before it): the session id as it is when shared, or
 * `{wf}<length of the workflow id>:<workflow id>:<session id>` for one workflow. `field` names the session id in errors.
 */
export function scopedSessionKey(
	sessionId: string,
	scope: unknown,
	workflowId: unknown,
	field = 'session_id',
): string {
	const chosen = scope ?? 'shared';
	if (chosen === 'shared') {
		if (sessionId.startsWith(WORKFLOW_SCOPE_MARK)) {
			throw new InputError(
				field,
				`a shared session ID may not start with "${WORKFLOW_SCOPE_MARK}": that start is kept for ` +
					'conversations scoped to one workflow; choose another session ID',
			);
		}
		return sessionId;
	}
	if (chosen !== 'workflow') {
		throw new ConfigError(
			'context_scope',
			`context_scope must be "shared" or "workflow", not ${JSON.stringify(chosen)}`,
		);
	}
	const id = typeof workflowId === 'number' ? String(workflowId) : workflowId;
	if (typeof id !== 'string' || id === '') {
		throw new ConfigError(
			'context_scope',
			'context_scope "workflow" keeps each workflow\'s conversations apart by its id, and no workflow id was given',
			'Give the workflow id (the library: workflowId; the CLI: --workflow-id ID), or set context_scope to "shared".',
		);
	}
	return `${WORKFLOW_SCOPE_MARK}${id.length}:${id}:${sessionId}`;
}
