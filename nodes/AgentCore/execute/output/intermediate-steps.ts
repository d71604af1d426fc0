// Options → Return Intermediate Steps: the run's tool calls in the shape n8n's AI Agent returns, for n8n's Evaluation node.
import {
	callStoppedByLimit,
	TOOL_CALL_ERRORS,
	type StepError,
	type TraceStep,
} from '../../../../src/run-path';
import { callGuardrails, type GuardrailNote } from './guardrail-notes';

/** The AI message that asked for the call, as n8n's AI Agent keeps it: no text of its own, the one tool call. */
interface AiMessage {
	type: 'ai';
	content: [];
	additional_kwargs: Record<string, never>;
	response_metadata: Record<string, never>;
	tool_calls: Array<{ id: string; name: string; args: Record<string, unknown>; type: 'tool_call' }>;
	invalid_tool_calls: [];
}

/**
 * One tool call as n8n 2.41.1's AI Agent lists it in `intermediateSteps` (@n8n/n8n-nodes-langchain,
 * utils/agent-execution/buildSteps.js and serializeIntermediateSteps.js).
 */
export interface IntermediateStep {
	action: {
		/** The tool's name as the model called it: what the Evaluation node's Tools Used metric compares. */
		tool: string;
		toolInput: Record<string, unknown>;
		log: string;
		/** The model's turn as n8n 2.41's AI Agent keeps it once serialised (its AIMessage without LangChain's `lc_*` bookkeeping). */
		messageLog: AiMessage[];
		toolCallId: string;
		type: 'tool_call';
	};
	/** What the model read back: the observation as fed back, or the tool's error. */
	observation: string;
	/** Agent Core's own (issue #50): the decisions hooks and guardrails took on this call, when any. */
	guardrails?: GuardrailNote[];
}

/** One tool call that came back to the model: a single action's step, or one call of an "actions" step. */
interface SeenCall {
	tool: string;
	args: Record<string, unknown>;
	observation?: string;
	error?: StepError;
	guardrails?: GuardrailNote[];
}

/**
 * The trace's tool calls, in order, as n8n's AI Agent returns `intermediateSteps`: a batch ("actions") gives one
 * entry per call, in the order asked. The trace is the run's output, already redacted, so nothing here needs the
 * redactor again. A call that never came back to the model (a limit stopped it, it waits for approval, the run
 * ended) is left out, as n8n's agent has no step for it. A call hooks or guardrails decided on (a denied one
 * too: the model read why) carries their decisions as `guardrails`, beside n8n's own two keys.
 */
export function intermediateStepsOf(trace: readonly TraceStep[]): IntermediateStep[] {
	return trace.flatMap((entry) => {
		if (entry.calls)
			return entry.calls.flatMap((call, index) =>
				callStoppedByLimit(entry, call)
					? []
					: entryOf(
							{ ...call, ...callGuardrails(entry, call.tool, index + 1) },
							`agent_core_step_${entry.step}_call_${index + 1}`,
						),
			);
		if (!entry.action) return [];
		return entryOf(
			{
				...entry.action,
				observation: entry.observation,
				error: entry.error,
				...callGuardrails(entry, entry.action.tool),
			},
			`agent_core_step_${entry.step}`,
		);
	});
}

function entryOf(call: SeenCall, toolCallId: string): IntermediateStep[] {
	const seenError =
		call.observation === undefined && call.error && TOOL_CALL_ERRORS.has(call.error.type)
			? call.error
			: undefined;
	if (call.observation === undefined && !seenError) return [];
	const { tool, args } = call;
	const message: AiMessage = {
		type: 'ai',
		content: [],
		additional_kwargs: {},
		response_metadata: {},
		tool_calls: [{ id: toolCallId, name: tool, args, type: 'tool_call' }],
		invalid_tool_calls: [],
	};
	return [
		{
			// n8n writes "Calling <node name>"; a tool's name is what Agent Core has for it.
			action: {
				tool,
				toolInput: args,
				log: `Calling ${tool}`,
				messageLog: [message],
				toolCallId,
				type: 'tool_call',
			},
			// The model's repair turn opens with these words (prompt.ts repairMessage).
			observation: seenError ? `Error: ${seenError.message}` : call.observation!,
			...(call.guardrails ? { guardrails: call.guardrails } : {}),
		},
	];
}
