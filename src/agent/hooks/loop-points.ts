// The loop's own hook points (issue #50): before_model, after_model, after_run and on_failure, as step outcomes.
import type { ChatMessage } from '../../core/messages';
import type { JsonSchema } from '../../validation/validate';
import type { AgentResult, GuardrailDecision, TraceStep } from '../../trace/types';
import { abortedReason } from '../base/run-clock';
import type { RunAnswer, StepOutcome } from '../base/step-outcome';
import { checkAnswer } from '../protocol/typed-answer';
import { blockedBy } from './blocked';
import type { ChainOutcome, HookChain } from './hook-chain';

/** An answer on its way to the listener: sent once checked, or called off (see AnswerRelease). */
export interface HeldAnswer {
	finishWithAnswer(text: string): void;
	finishWithoutAnswer(reason: string): void;
}

/** A step's decisions, listed on its trace entry as they are taken. */
export function noteDecisions(entry: TraceStep, decisions: readonly GuardrailDecision[]): void {
	if (decisions.length) entry.guardrails = [...(entry.guardrails ?? []), ...decisions];
}

/**
 * The step's end when a chain blocked (the run ends `guardrail`) or the run's signal fired (as the signal says);
 * undefined when the run goes on. The loop's points and the one call path both read a chain's end here.
 */
export function ended(
	entry: TraceStep,
	outcome: Extract<ChainOutcome, { next: 'block' | 'stopped' }>,
	signal: AbortSignal,
): StepOutcome;
export function ended(
	entry: TraceStep,
	outcome: ChainOutcome,
	signal: AbortSignal,
): StepOutcome | undefined;
export function ended(
	entry: TraceStep,
	outcome: ChainOutcome,
	signal: AbortSignal,
): StepOutcome | undefined {
	if (outcome.next === 'block') return blockedBy(entry, outcome.detail);
	if (outcome.next === 'stopped') return { next: 'finish', ...abortedReason(signal.reason) };
	return undefined;
}

/** Runs `point` on the step and lists its decisions on the step's trace entry. */
async function atStep(
	chain: HookChain,
	point: 'before_model' | 'after_model' | 'after_run',
	entry: TraceStep,
	value: unknown,
): Promise<ChainOutcome> {
	const taken: GuardrailDecision[] = [];
	const outcome = await chain.run(point, { step: entry.step }, value, taken);
	noteDecisions(entry, taken);
	return outcome;
}

/** before_model: the messages of this one call, as the hooks leave them, or the step's end. */
export function beforeModel(
	chain: HookChain,
	entry: TraceStep,
	signal: AbortSignal,
): ((messages: ChatMessage[]) => Promise<ChatMessage[] | StepOutcome>) | undefined {
	if (!chain.has('before_model')) return undefined;
	return async (messages) => {
		const outcome = await atStep(chain, 'before_model', entry, messages);
		return ended(entry, outcome, signal) ?? (outcome as { value: ChatMessage[] }).value;
	};
}

/** after_model: the reply as it came; a hook may block the run here. */
export async function afterModel(
	chain: HookChain,
	entry: TraceStep,
	reply: string,
	signal: AbortSignal,
): Promise<StepOutcome | undefined> {
	if (!chain.has('after_model')) return undefined;
	return ended(entry, await atStep(chain, 'after_model', entry, reply), signal);
}

/**
 * after_run on the final answer, which was held from the listener until now: a changed answer is checked
 * against `output_schema` again (one that fails it ends the run `guardrail`), then released, or called off.
 */
export async function afterRun(
	chain: HookChain,
	entry: TraceStep,
	turn: Extract<StepOutcome, { next: 'finish' }> & { answer: RunAnswer },
	schema: JsonSchema | undefined,
	signal: AbortSignal,
	held?: HeldAnswer,
): Promise<StepOutcome> {
	const { answer } = turn;
	const given = answer.value ?? answer.text;
	const outcome = await atStep(chain, 'after_run', entry, given);
	const stop = ended(entry, outcome, signal);
	if (stop) {
		delete entry.final;
		held?.finishWithoutAnswer('a guardrail stopped the answer');
		return stop;
	}
	const value = (outcome as { value: unknown }).value;
	let final = answer;
	if (value !== given) {
		const checked =
			schema || typeof value === 'string'
				? checkAnswer(value, schema)
				: { ok: false as const, message: 'the answer must be text (the run has no output_schema)' };
		if (!checked.ok) {
			delete entry.final;
			held?.finishWithoutAnswer('a guardrail stopped the answer');
			const by = entry.guardrails?.filter((one) => one.point === 'after_run').at(-1)?.name;
			return blockedBy(
				entry,
				`${by ?? 'a hook'} changed the answer at after_run: ${checked.message}`,
			);
		}
		final = {
			text: checked.text,
			...(checked.value !== undefined ? { value: checked.value } : {}),
		};
		entry.final = { answer: final.value ?? final.text };
	}
	held?.finishWithAnswer(final.text);
	return { ...turn, answer: final };
}

/** on_failure: the hooks see how a run that gave no answer ended (a pause is not a failure). */
export async function onFailure(chain: HookChain, result: AgentResult): Promise<void> {
	if (result.finish_reason === 'final' || result.finish_reason === 'awaiting_approval') return;
	if (!chain.has('on_failure')) return;
	await chain.failed(result.trace.length, result.finish_reason, result.stop_detail);
}
