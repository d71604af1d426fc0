import type { ChatMessage } from '../core/messages';
import type { TokenUsage } from '../core/usage';
import { openSealedValue, sealValue } from '../run-state/sealed-value';
import { configHash, newRunStateId, openRunState, RunStateError, signRunState, USED_STATE_MEMORY_DAYS } from '../run-state/signed-state';
import { readableStep } from '../trace/readable-step';
import type { Redactor } from '../trace/redact';
import type { ToolUsage, TraceStep } from '../trace/types';
import type { AgentConfig } from './config';
import type { RepeatSnapshot } from './repeated-calls';

/** Everything a run paused for approval needs to continue, as the run had it (secrets included). */
export interface PausedRun {
  /** The step that asked for the call; the resumed run answers it and goes on from there. */
  step: number;
  /** The call waiting for a person, exactly as the model asked for it. */
  pending: { tool: string; args: Record<string, unknown> };
  conversation: ChatMessage[];
  new_user_message: ChatMessage;
  trace: TraceStep[];
  usage: TokenUsage;
  used_tools: Record<string, ToolUsage>;
  tool_calls: number;
  cost: number;
  failures: number;
  repeats: RepeatSnapshot;
  /** What the user and the workflow wrote (ToolContext.trustedText), kept as the run started. */
  trusted_text: string;
}

/** A paused run being resumed: its state, and the person's decision. */
export interface Resumed {
  paused: PausedRun;
  decision: ApprovalDecision;
}

/** A person's answer to a paused call: run it, refuse it (the model is told why), or run it with other arguments. */
export type ApprovalDecision = { approve: true } | { deny: string } | { edit: Record<string, unknown> };

/** How long a used run state is remembered (so it cannot be resumed twice): thirty days, the longest a state may live. */
export const USED_STATE_TTL_SECONDS = USED_STATE_MEMORY_DAYS * 86_400;

/** The observation the model gets for a refused call. */
export function refusalObservation(tool: string, reason: string): string {
  return `A person refused this ${tool} call, and it was not run. Their reason: ${reason || '(none given)'}. Do not make the same call again; answer without it, or ask for what is missing.`;
}

/**
 * The parts of a paused run that must come back exactly, and that the redactor would change: the call
 * (approve runs what the model asked for, not `[REDACTED]`), what the model and the user said, what the
 * loop breaker remembers (it compares exact calls) and the trusted text. They travel sealed (AES-256-GCM).
 */
type ExactPart = Pick<PausedRun, 'conversation' | 'new_user_message' | 'repeats' | 'trusted_text'> & { tool: string; args: Record<string, unknown> };

/** What anyone reading a run state sees: redacted like every output, the exact parts only sealed. */
type ReadablePart = Omit<PausedRun, keyof ExactPart | 'pending'> & { pending: PausedRun['pending'] };

/** The hash a paused run's config is known by: the maximum age is the resuming side's rule, and may change meanwhile. */
const stateConfigHash = (config: AgentConfig) => configHash({ ...(config as unknown as Record<string, unknown>), run_state_max_age_days: undefined });

/**
 * A paused run's output fields: `pending_action` (the call, redacted, for the person who decides) and the
 * signed `run_state`, whose readable part is redacted before it is signed (the output's redaction then leaves
 * it and its signature as they are) and whose exact part is sealed.
 */
export function pausedOutput(paused: PausedRun, redactor: Redactor, secret: string, config: AgentConfig): Record<string, unknown> {
  const { step, pending, conversation, new_user_message, trace, usage, used_tools, tool_calls, cost, failures, repeats, trusted_text } = paused;
  const id = newRunStateId();
  const exact: ExactPart = { tool: pending.tool, args: pending.args, conversation, new_user_message, repeats, trusted_text };
  const readable: ReadablePart = redactor.value({ step, pending, trace: trace.map(readableStep), usage, used_tools, tool_calls, cost, failures });
  const state = signRunState({ ...readable, sealed: sealValue(exact, secret, id) }, secret, stateConfigHash(config), { id });
  return { pending_action: readable.pending, run_state: state };
}

/**
 * The paused run a state holds, once its size, signature, age and config check out and its sealed part
 * opens (RunStateError otherwise), with the state's one-time id.
 */
export function openPausedRun(state: unknown, secret: string, config: AgentConfig, now?: number): { id: string; paused: PausedRun } {
  const payload = openRunState<ReadablePart & { sealed: unknown }>(state, secret, stateConfigHash(config), { maxAgeDays: config.run_state_max_age_days, now });
  const exact = openSealedValue(payload.sealed, secret, payload.id) as ExactPart;
  if (typeof exact?.tool !== 'string' || typeof exact.args !== 'object' || exact.args === null || !Array.isArray(exact.conversation)) {
    throw new RunStateError('run_state\'s sealed part is not a paused call: pass the run_state of the paused run\'s output, unchanged');
  }
  const { step, trace, usage, used_tools, tool_calls, cost, failures } = payload;
  const { tool, args, conversation, new_user_message, repeats, trusted_text } = exact;
  return { id: payload.id, paused: { step, pending: { tool, args }, conversation, new_user_message, trace, usage, used_tools, tool_calls, cost, failures, repeats, trusted_text } };
}
