// Every call of a new step checked before any runs (issue #42): the first bad call, named by its number in a batch.
import type { Tool } from '../../tools/tool';
import type { StepError } from '../../trace/types';
import { checkToolCall, refusalBeforeRun, type ToolCallContext } from './execute-tool';
import { callLabel } from '../protocol/actions-turn';
import type { BatchState } from '../pause/calls-state';

/**
 * The whitelist and each call's args, before anything runs; for a batch, also what each tool refuses before
 * running (egress), so that no call of it runs when one would be refused (one call is refused as it runs,
 * by its tool). A call that needs approval passes: the run pauses before it (run-calls.ts).
 */
export function checkCalls(
	context: Pick<ToolCallContext, 'tools' | 'config' | 'trustedText'>,
	batch: BatchState,
): { tools: Tool[] } | { error: StepError } {
	const tools: Tool[] = [];
	if (batch.form === 'action') {
		const [{ tool, args }] = batch.calls;
		const checked = checkToolCall(context.tools, tool, args);
		return 'error' in checked ? checked : { tools: [checked.tool] };
	}
	for (const [index, { tool: name, args }] of batch.calls.entries()) {
		const checked = checkToolCall(context.tools, name, args);
		const label = `${callLabel(index)} (${name})`;
		if ('error' in checked)
			return {
				error: {
					...checked.error,
					message: `${label}: ${checked.error.message}. None of the calls ran; send them again with this one fixed.`,
				},
			};
		const refused = refusalBeforeRun(context, checked.tool, name, args);
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
