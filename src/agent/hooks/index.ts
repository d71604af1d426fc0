// The hooks room's door: the run's hook chain (library hooks, then the built-in guardrails) and its words.
export { HookChain, type ChainOutcome, type HookPlace } from './hook-chain';
export { HOOK_TIMEOUT_MS, MAX_HOOK_VALUE_CHARS } from './hook-reply';
export {
	HOOK_POINTS,
	type AgentHook,
	type GuardrailDecision,
	type HookData,
	type HookDecision,
	type HookPoint,
} from '../base/hook-types';
export { checkHooks } from './check-hooks';
export { blockedBy } from './blocked';
export {
	afterModel,
	afterRun,
	beforeModel,
	ended,
	noteDecisions,
	onFailure,
	type HeldAnswer,
} from './loop-points';
