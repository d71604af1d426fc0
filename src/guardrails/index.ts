// The built-in guardrails' door: the `guardrails` setting checked, and their checks (find, redact) on texts and values.
export { checkGuardrails, MAX_GUARDRAILS } from './check-config';
export { findMatches, findInValue, hasMatch, redactMatches } from './find';
export { redactInValue } from './redact-value';
export { passesLuhn, passesMod97 } from './account-numbers';
export {
	ACTIONS,
	CHECKS,
	PII_KINDS,
	POINTS,
	type Guardrail,
	type GuardrailAction,
	type GuardrailCheck,
	type GuardrailPoint,
	type Match,
	type PiiKind,
	type ValueMatch,
} from './types';
