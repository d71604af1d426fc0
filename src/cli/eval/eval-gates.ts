// `agent-core eval`'s gates judged on one run's output: each gate passes or fails with a sentence saying why.
import { TOOL_CALL_ERRORS } from '../../trace/readable-step';
import type { AgentResult } from '../../trace/types';
import { canonicalJson } from '../../validation/canonical-json';
import {
	linearRegExp,
	patternBudgetRefusal,
	quotePattern,
	startPatternBudget,
} from '../../validation/linear-regexp';
import { validateAgainst } from '../../validation/validate';
import type { GateName, GateSpec } from './eval-spec';
import { GATE_NAMES } from './eval-spec';

/** One gate's verdict. */
export interface GateResult {
	passed: boolean;
	reason: string;
}

/** The verdicts of the gates a case was held to, by gate name; `run` when the run itself failed (then alone). */
export type GateResults = Partial<Record<GateName | 'run', GateResult>>;

/** A value shown in a reason: a text in quotes, any other value as JSON; cut at 80 characters. */
function quote(value: unknown): string {
	const text = typeof value === 'string' ? value : canonicalJson(value);
	const cut = text.length > 80 ? `${text.slice(0, 80)}…` : text;
	return typeof value === 'string' ? JSON.stringify(cut) : cut;
}

/** Model turns (a compaction, step 0, is not one, nor a plan's step, which runs without a model call). */
export const stepCount = (result: AgentResult): number =>
	result.trace.filter((step) => step.step >= 1 && step.plan_steps === undefined).length;

/** Each tool error of the run, as `step N tool_error: message`. */
export function toolErrors(result: AgentResult): string[] {
	return result.trace.flatMap((step) => {
		if (step.error && TOOL_CALL_ERRORS.has(step.error.type))
			return [`step ${step.step} ${step.error.type}: ${step.error.message}`];
		// A batch whose calls did not all fail: the step has no error, its failed calls do.
		return (step.calls ?? []).flatMap((call, index) =>
			call.error && TOOL_CALL_ERRORS.has(call.error.type)
				? [`step ${step.step} call ${index + 1} ${call.error.type}: ${call.error.message}`]
				: [],
		);
	});
}

/** The answer as a JSON value: the typed answer, else the answer's text parsed as JSON, else the text. */
function answerValue(result: AgentResult): unknown {
	if (result.final_output !== undefined) return result.final_output;
	try {
		return JSON.parse(result.final_answer);
	} catch {
		return result.final_answer;
	}
}

const verdict = (passed: boolean, reason: string): GateResult => ({ passed, reason });

function answerGate(gate: GateName, spec: GateSpec, result: AgentResult): GateResult {
	switch (gate) {
		case 'answer': {
			const expected = spec.answer;
			if (typeof expected === 'string')
				return result.final_answer === expected
					? verdict(true, `the answer is ${quote(expected)}`)
					: verdict(
							false,
							`expected the answer ${quote(expected)}, got ${quote(result.final_answer)}`,
						);
			const actual = answerValue(result);
			return canonicalJson(actual) === canonicalJson(expected)
				? verdict(true, `the answer is ${quote(expected)}`)
				: verdict(false, `expected the answer ${quote(expected)}, got ${quote(actual)}`);
		}
		case 'contains': {
			const missing = spec.contains!.filter((text) => !result.final_answer.includes(text));
			return missing.length === 0
				? verdict(true, `the answer contains ${spec.contains!.map(quote).join(', ')}`)
				: verdict(
						false,
						`the answer does not contain ${missing.map(quote).join(', ')}: ${quote(result.final_answer)}`,
					);
		}
		case 'regex': {
			// RE2 (linear in the text): a pattern such as (a+)+$ cannot freeze the run of the set.
			startPatternBudget();
			const matched = linearRegExp(spec.regex!, 'u').test(result.final_answer);
			const refusal = patternBudgetRefusal();
			if (refusal) return verdict(false, `${refusal}: not checked`);
			return matched
				? verdict(true, `the answer matches ${quotePattern(spec.regex!)}`)
				: verdict(
						false,
						`the answer does not match ${quotePattern(spec.regex!)}: ${quote(result.final_answer)}`,
					);
		}
		default: {
			const checked = validateAgainst(spec.schema!, answerValue(result), 'answer');
			return checked.ok
				? verdict(true, 'the answer matches the schema')
				: verdict(false, `the answer does not match the schema: ${checked.issues.join('; ')}`);
		}
	}
}

function toolGate(
	gate: 'tools' | 'not_tools' | 'no_tool_errors',
	spec: GateSpec,
	result: AgentResult,
): GateResult {
	if (gate === 'no_tool_errors') {
		const errors = toolErrors(result);
		if (!spec.no_tool_errors) return verdict(true, 'tool errors allowed');
		return errors.length === 0
			? verdict(true, 'no tool errors')
			: verdict(
					false,
					`${errors.length} tool error${errors.length === 1 ? '' : 's'}: ${errors.join('; ')}`,
				);
	}
	const asked = (name: string) =>
		result.trace
			.filter(
				(step) => step.action?.tool === name || step.calls?.some((call) => call.tool === name),
			)
			.map((step) => step.step);
	if (gate === 'tools') {
		const problems = spec.tools!.flatMap((name) => {
			if ((result.used_tools[name]?.count ?? 0) > 0) return [];
			const steps = asked(name);
			return [
				steps.length === 0
					? `${name} was never called`
					: `${name} was asked for (step ${steps.join(', ')}) but never ran`,
			];
		});
		return problems.length === 0
			? verdict(
					true,
					`called ${spec.tools!.map((name) => `${name} (${result.used_tools[name].count}×)`).join(', ')}`,
				)
			: verdict(false, problems.join('; '));
	}
	const called = spec.not_tools!.flatMap((name) => {
		const steps = asked(name);
		if (steps.length === 0) return [];
		return [
			`${name} was called at step ${steps.join(', ')}${(result.used_tools[name]?.count ?? 0) > 0 ? ' and ran' : ' (refused, never ran)'}`,
		];
	});
	return called.length === 0
		? verdict(true, `never called ${spec.not_tools!.join(', ')}`)
		: verdict(false, called.join('; '));
}

function limitGate(
	gate: 'finish_reason' | 'max_steps' | 'max_tokens' | 'max_cost',
	spec: GateSpec,
	result: AgentResult,
): GateResult {
	switch (gate) {
		case 'finish_reason': {
			const allowed = spec.finish_reason!;
			const detail = result.stop_detail ? ` (${result.stop_detail})` : '';
			return allowed.includes(result.finish_reason)
				? verdict(true, `finish_reason ${result.finish_reason}`)
				: verdict(
						false,
						`finish_reason ${result.finish_reason}${detail}, expected ${allowed.join(' or ')}`,
					);
		}
		case 'max_steps': {
			const steps = stepCount(result);
			return verdict(
				steps <= spec.max_steps!,
				`${steps} step${steps === 1 ? '' : 's'}, at most ${spec.max_steps} allowed`,
			);
		}
		case 'max_tokens': {
			const tokens = result.usage.total_tokens;
			return verdict(
				tokens <= spec.max_tokens!,
				`${tokens} tokens${result.usage.estimated ? ' (partly estimated)' : ''}, at most ${spec.max_tokens} allowed`,
			);
		}
		default: {
			if (result.cost === null)
				return verdict(
					false,
					`the cost is unknown, so max_cost cannot hold: ${result.cost_notice ?? 'a model of the run has no price'}`,
				);
			return verdict(
				result.cost <= spec.max_cost!,
				`cost ${result.cost} USD, at most ${spec.max_cost} allowed`,
			);
		}
	}
}

/** The verdict of every gate in `spec` on this run. */
export function judgeGates(spec: GateSpec, result: AgentResult): GateResults {
	const results: GateResults = {};
	for (const gate of GATE_NAMES) {
		if (spec[gate] === undefined) continue;
		if (gate === 'answer' || gate === 'contains' || gate === 'regex' || gate === 'schema') {
			// An answer gate on a run that gave none says why there is none, rather than comparing an empty text.
			results[gate] =
				result.finish_reason === 'final'
					? answerGate(gate, spec, result)
					: verdict(
							false,
							`no answer: the run ended ${result.finish_reason}${result.stop_detail ? ` (${result.stop_detail})` : ''}`,
						);
		} else if (gate === 'tools' || gate === 'not_tools' || gate === 'no_tool_errors') {
			results[gate] = toolGate(gate, spec, result);
		} else {
			results[gate] = limitGate(gate, spec, result);
		}
	}
	return results;
}
