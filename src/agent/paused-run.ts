import type { ChatMessage, TokenUsage } from '../providers/chat-model';
import { configHash, signRunState } from '../run-state/signed-state';
import { readableStep } from '../trace/readable-step';
import type { Redactor } from '../trace/redact';
import type { ToolUsage, TraceStep } from '../trace/types';
import type { AgentConfig } from './config';
import type { RepeatSnapshot } from './repeated-calls';

/** What a run paused for approval carries in its signed run state: everything needed to continue it. */
export interface PausedRun {
  /** The step that asked for the call; the resumed run answers it and goes on from there. */
  step: number;
  /** The call waiting for a person (its args redacted like every output). */
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

/** How long a used run state is remembered (so it cannot be resumed twice): thirty days. */
export const USED_STATE_TTL_SECONDS = 30 * 86_400;

/** The observation the model gets for a refused call. */
export function refusalObservation(tool: string, reason: string): string {
  return `A person refused this ${tool} call, and it was not run. Their reason: ${reason || '(none given)'}. Do not make the same call again; answer without it, or ask for what is missing.`;
}

/**
 * A paused run's output fields: `pending_action` and the signed `run_state`. The state is redacted before it
 * is signed, so the output's redaction leaves it (and its signature) as it is.
 */
export function pausedOutput(paused: PausedRun, redactor: Redactor, secret: string, config: AgentConfig): Record<string, unknown> {
  const state: PausedRun = redactor.value({ ...paused, trace: paused.trace.map(readableStep) });
  return { pending_action: state.pending, run_state: signRunState(state, secret, configHash(config as unknown as Record<string, unknown>)) };
}
