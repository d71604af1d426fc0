// The built-in guardrails (the `guardrails` setting) at one hook point: block, deny the call, or redact, in order.
import { canonicalJson } from '../../validation/canonical-json';
import { sha256 } from '../../trace/digest';
import {
	findInValue,
	findMatches,
	hasMatch,
	redactInValue,
	redactMatches,
	type Guardrail,
	type GuardrailPoint,
} from '../../guardrails';
import type { GuardrailDecision, HookPoint } from '../base/hook-types';

/** The hook point at which each target of `on` is checked. */
export const POINT_OF_TARGET: Record<GuardrailPoint, HookPoint> = {
	input: 'before_run',
	tool_call: 'before_tool',
	observation: 'after_tool',
	answer: 'after_run',
};

/** A guardrail's definition hashed as canonical JSON: the audit names exactly which version decided. */
const definitions = new WeakMap<Guardrail, string>();
export function definitionHash(guardrail: Guardrail): string {
	let hash = definitions.get(guardrail);
	if (hash === undefined) definitions.set(guardrail, (hash = sha256(canonicalJson(guardrail))));
	return hash;
}

/** A value's hash as the audit keeps it: the SHA-256 of its canonical JSON. */
export const valueHash = (value: unknown): string => sha256(canonicalJson(value ?? null));

export type BuiltInOutcome =
	| { next: 'go'; value: unknown }
	| { next: 'deny' | 'block'; value: unknown; by: string; reason: string };

/**
 * The guardrails that check `target`, in their order, over `value` (text, or a call's args: every key and
 * string). `block` and `deny_call` stop at the first that finds anything (text the pattern budget could not
 * check counts as found); `redact` replaces each find with `[redacted:<name>]` and the next one sees that.
 * Each decision is pushed to `decisions`.
 */
export function runGuardrails(
	guardrails: readonly Guardrail[],
	target: GuardrailPoint,
	start: unknown,
	decisions: GuardrailDecision[],
	where: Pick<GuardrailDecision, 'tool' | 'call' | 'file'> = {},
): BuiltInOutcome {
	const point = POINT_OF_TARGET[target];
	let value = start;
	for (const guardrail of guardrails) {
		if (!guardrail.on.includes(target)) continue;
		const before = value;
		const record = (decision: GuardrailDecision['decision'], changed?: unknown) =>
			decisions.push({
				name: guardrail.name,
				by: 'guardrail',
				point,
				decision,
				...where,
				definition_sha256: definitionHash(guardrail),
				seen_sha256: valueHash(before),
				...(changed !== undefined ? { changed_sha256: valueHash(changed) } : {}),
			});
		if (guardrail.action === 'redact') {
			const redacted =
				typeof value === 'string'
					? redactMatches(value, findMatches(guardrail, value), guardrail.name)
					: redactInValue(guardrail, value);
			const same =
				typeof value === 'string'
					? redacted === value
					: canonicalJson(redacted) === canonicalJson(value);
			if (same) continue;
			record('redact', redacted);
			value = redacted;
			continue;
		}
		const found =
			typeof value === 'string'
				? hasMatch(guardrail, value)
				: findInValue(guardrail, value).length > 0;
		if (!found) continue;
		const decision = guardrail.action === 'deny_call' ? 'deny' : 'block';
		record(decision);
		const reason = `guardrail "${guardrail.name}" (${guardrail.check}) found what it checks for in the ${target.replace('_', ' ')}`;
		return { next: decision, value, by: `guardrail "${guardrail.name}"`, reason };
	}
	return { next: 'go', value };
}
