// A stored run by model turn (issue #51): each turn's recorded step, and the calls it and the plan steps after it made.
import type { AuditRecord, AuditStep } from '../audit/record';
import type { ChatResponse } from '../providers/chat-model';
import { callRan, stepFinishReason } from '../trace/readable-step';
import type { RunPlan } from '../trace/types';
import { canonicalJson } from '../validation/canonical-json';

/** What a recorded call came to: its observation, or the error it failed with. */
export type RecordedOutcome = { observation: string } | { error: string };

/**
 * A stored run read by model turn, as replay and fork take it again. A trace step of a plan (`plan_steps`) had no
 * model call: the calls of a turn are its own step's and those of the plan steps that ran after it, before the
 * next turn. Each recorded call is answered once.
 */
export class RecordedTurns {
	/** The position in the record's steps of each model turn's step, in order. */
	readonly positions: number[];
	private readonly answered = new Set<string>();

	constructor(private readonly record: AuditRecord) {
		this.positions = record.steps.flatMap((entry, position) =>
			entry.step.plan_steps === undefined ? [position] : [],
		);
	}

	/** The recorded step of model turn `turn` (1-based). */
	stepOf(turn: number): AuditStep | undefined {
		return this.record.steps[this.positions[turn - 1]];
	}

	/** How many model turns the record's first `steps` steps took. */
	turnsIn(steps: number): number {
		return this.positions.filter((position) => position < steps).length;
	}

	/** The positions of turn `turn`'s step and of the plan steps that ran after it. */
	span(turn: number): number[] {
		const from = this.positions[turn - 1];
		if (from === undefined) return [];
		const to = this.positions[turn] ?? this.record.steps.length;
		return Array.from({ length: to - from }, (_, index) => from + index);
	}

	/**
	 * The recorded call of turn `turn` with this tool and canonical args not answered yet, among the steps before
	 * position `before` (a fork's step), with its position; undefined when the record has none.
	 */
	take(
		turn: number,
		tool: string,
		args: unknown,
		before = Infinity,
	): { position: number; outcome: RecordedOutcome } | undefined {
		const key = canonicalJson(args);
		for (const position of this.span(turn)) {
			if (position >= before) break;
			const step = this.record.steps[position].step;
			const calls = step.calls
				? step.calls.map((call, index) => ({ call, index, ran: callRan(step, call) }))
				: step.action && step.repeat_of === undefined
					? [{ call: { ...step, ...step.action }, index: 0, ran: true }]
					: [];
			for (const { call, index, ran } of calls) {
				const id = `${position}:${index}`;
				if (!ran || this.answered.has(id) || call.tool !== tool || canonicalJson(call.args) !== key)
					continue;
				this.answered.add(id);
				const outcome =
					call.observation !== undefined
						? { observation: call.observation }
						: { error: call.error?.message ?? 'the recorded call failed' };
				return { position, outcome };
			}
		}
		return undefined;
	}

	/** Turn `turn`'s recorded reply as the model gave it (see replyOf); throws the recorded error of a failed call. */
	response(turn: number): ChatResponse {
		const recorded = this.stepOf(turn);
		if (!recorded) throw new Error(`the record has no model turn ${turn}`);
		const { step } = recorded;
		if (recorded.reply === undefined && !step.action && !step.final && !step.plan && step.error)
			throw new Error(step.error.message);
		return {
			text: replyOf(recorded, this.record.plan),
			usage: step.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
			finishReason: stepFinishReason(step),
		};
	}
}

/**
 * The reply as the model sent it, or rebuilt from what the step recorded of it (a step before a resume has no
 * reply kept). The step whose plan a person edited replies with the plan as they approved it (`kept`), so the
 * run goes on with the steps that ran.
 */
export function replyOf({ reply, step }: AuditStep, kept?: RunPlan): string {
	if (step.plan && kept?.planned_at === step.step && kept.approval?.edited) {
		const steps = kept.steps.map(({ step: number, description, tool, args }) => ({
			step: number,
			description,
			tool,
			args,
		}));
		return JSON.stringify({ type: 'plan', steps });
	}
	if (reply !== undefined) return reply;
	if (step.plan) return JSON.stringify({ type: 'plan', steps: step.plan });
	if (step.action)
		return JSON.stringify({ type: 'action', tool: step.action.tool, args: step.action.args });
	if (step.final) return JSON.stringify({ type: 'final', answer: step.final.answer });
	return step.reply_excerpt ?? '';
}
