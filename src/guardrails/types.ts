// The words of the built-in guardrails: their checks, kinds, points and actions, and what a check finds.

export const CHECKS = ['pii', 'secrets', 'urls', 'pattern', 'keywords'] as const;
export const PII_KINDS = ['email', 'phone', 'credit_card', 'iban', 'ip_address'] as const;
/**
 * Where a guardrail looks: the user's input (before_run), a tool call's args (before_tool), an observation
 * (after_tool), the answer (after_run).
 */
export const POINTS = ['input', 'tool_call', 'observation', 'answer'] as const;
export const ACTIONS = ['block', 'redact', 'deny_call'] as const;

export type GuardrailCheck = (typeof CHECKS)[number];
export type PiiKind = (typeof PII_KINDS)[number];
export type GuardrailPoint = (typeof POINTS)[number];
export type GuardrailAction = (typeof ACTIONS)[number];

interface GuardrailBase {
	name: string;
	on: readonly GuardrailPoint[];
	action: GuardrailAction;
}

/** One entry of the `guardrails` setting, as checkGuardrails returns it (hosts written as URLs compare them). */
export type Guardrail = GuardrailBase &
	(
		| { check: 'pii'; kinds: readonly PiiKind[] }
		| { check: 'secrets' }
		| { check: 'urls'; allowed_hosts: readonly string[] }
		| { check: 'pattern'; pattern: string }
		| { check: 'keywords'; keywords: readonly string[] }
	);

/**
 * What a check found in a text: `[start, end)` and its kind — a PII kind, `secret`, `host` (not allowed),
 * `pattern`, `keyword`, or `unchecked` (the rest of a text the pattern budget could not check: it counts as found).
 */
export interface Match {
	start: number;
	end: number;
	kind: PiiKind | 'secret' | 'host' | 'pattern' | 'keyword' | 'unchecked';
}

/** A match in a value: the path of keys and indices to the string, and whether it is a key's name or a string value. */
export interface ValueMatch extends Match {
	path: readonly (string | number)[];
	in: 'key' | 'value';
}
