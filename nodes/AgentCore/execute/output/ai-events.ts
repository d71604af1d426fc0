import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { callRan, type AgentResult } from '../../../../src/run-path';
import { callGuardrails, stepGuardrails } from './guardrail-notes';

const guardrailNotes = { step: stepGuardrails, call: callGuardrails };
const noNotes = { step: () => ({}), call: () => ({}) };

/**
 * Records a credential-mode run's model and tool calls where n8n records its AI nodes' calls. A root node
 * cannot write entries of its own into the Logs view (n8n-core refuses addInputData/addOutputData on it, and
 * run data under its name would count as extra runs), so: one `logAiEvent` per model call and per tool
 * call, for n8n's event log and log streaming; and the run's tokens as `tokenUsage` on the output item,
 * which the editor's Logs view sums for the node and the execution. With a connected chat model the
 * sub-node's own tracing does both, so this is for the credential mode only. A step's guardrail decisions
 * (issue #50) ride on its model call's event, and a call's on its tool event: `guardrails: [{name, by, point,
 * decision, tool?, call?}]`; a call a guardrail denied never ran and has no tool event.
 */
export function recordAiCalls(
	context: IExecuteFunctions,
	result: AgentResult,
): { tokenUsage: IDataObject } {
	for (const step of result.trace) {
		// A step without guardrail decisions (none configured, or none taken) has no notes to add.
		const notes = step.guardrails?.length ? guardrailNotes : noNotes;
		const call = {
			step: step.step,
			provider: step.provider,
			model: step.model,
			usage: step.usage,
			model_ms: step.model_ms,
			...notes.step(step),
		};
		if (step.error?.type === 'llm_error' || (step.error?.type === 'timeout' && !step.action)) {
			context.logAiEvent('ai-llm-errored', JSON.stringify({ ...call, error: step.error.message }));
		} else {
			context.logAiEvent('ai-llm-generated-output', JSON.stringify(call));
		}
		// A batch ("actions"): one event per call that ran, as for a single call.
		for (const [index, tool] of (step.calls ?? []).entries())
			if (callRan(step, tool))
				context.logAiEvent(
					'ai-tool-called',
					JSON.stringify({
						step: step.step,
						tool: tool.tool,
						tool_ms: tool.elapsed_ms,
						ok: !tool.error,
						...notes.call(step, tool.tool, index + 1),
					}),
				);
		if (step.action && step.tool_ms !== undefined) {
			context.logAiEvent(
				'ai-tool-called',
				JSON.stringify({
					step: step.step,
					tool: step.action.tool,
					tool_ms: step.tool_ms,
					ok: step.observation !== undefined,
					...notes.call(step, step.action.tool),
				}),
			);
		}
	}
	const {
		prompt_tokens: promptTokens,
		completion_tokens: completionTokens,
		total_tokens: totalTokens,
	} = result.usage;
	return { tokenUsage: { promptTokens, completionTokens, totalTokens } };
}
