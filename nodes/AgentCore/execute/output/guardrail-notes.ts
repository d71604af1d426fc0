// What n8n's Logs view and event log show of a step's guardrail decisions (issue #50): who, where, what.
import type { GuardrailDecision, TraceStep } from '../../../../src/run-path';

/** One decision as the AI events and intermediate steps name it: never its reason or what it found. */
export interface GuardrailNote {
	name: string;
	by: GuardrailDecision['by'];
	point: GuardrailDecision['point'];
	decision: GuardrailDecision['decision'];
	tool?: string;
	call?: number;
	/** before_run: the file sent with the input whose text it checked (its shown name, as the trace has it). */
	file?: string;
}

function noteOf({ name, by, point, decision, tool, call, file }: GuardrailDecision): GuardrailNote {
	return {
		name,
		by,
		point,
		decision,
		...(tool !== undefined ? { tool } : {}),
		...(call !== undefined ? { call } : {}),
		...(file !== undefined ? { file } : {}),
	};
}

/** Every decision the step lists, or nothing when it lists none. */
export function stepGuardrails(step: TraceStep): { guardrails?: GuardrailNote[] } {
	const notes = (step.guardrails ?? []).map(noteOf);
	return notes.length ? { guardrails: notes } : {};
}

/**
 * The decisions taken on one tool call of the step (before_tool, after_tool): the step's single action when
 * `call` is undefined, else that call of its batch (1-based).
 */
export function callGuardrails(
	step: TraceStep,
	tool: string,
	call?: number,
): { guardrails?: GuardrailNote[] } {
	const notes = (step.guardrails ?? [])
		.filter((one) => one.tool === tool && one.call === call)
		.map(noteOf);
	return notes.length ? { guardrails: notes } : {};
}
