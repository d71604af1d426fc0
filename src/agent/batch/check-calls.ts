// Every call of a new batch checked before any runs (issue #42): the first bad call, named by its number.
import type { Tool } from '../../tools/tool';
import type { StepError } from '../../trace/types';
import { checkToolCall } from '../execute-tool';
import { callLabel, type ToolCallRequest } from '../protocol/actions-turn';
import type { BatchHost } from './batch-host';

/**
 * The whitelist, each call's args and what its tool refuses before running (egress), before anything runs. A
 * call that needs approval passes: the batch pauses before it (run-batch.ts).
 */
export function checkCalls(
	host: Pick<BatchHost, 'tools' | 'refusalBeforeRun'>,
	calls: readonly ToolCallRequest[],
): { tools: Tool[] } | { error: StepError } {
	const tools: Tool[] = [];
	for (const [index, { tool: name, args }] of calls.entries()) {
		const checked = checkToolCall(host.tools, name, args);
		const label = `${callLabel(index)} (${name})`;
		if ('error' in checked)
			return {
				error: {
					...checked.error,
					message: `${label}: ${checked.error.message}. None of the calls ran; send them again with this one fixed.`,
				},
			};
		const refused = host.refusalBeforeRun(checked.tool, name, args);
		if (refused !== undefined)
			return {
				error: {
					type: 'tool_not_allowed',
					message: `${label}: ${refused}. None of the calls ran; send them again without this one, or with it fixed.`,
				},
			};
		tools.push(checked.tool);
	}
	return { tools };
}
