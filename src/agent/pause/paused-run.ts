import type { ChatMessage } from '../../core/messages';
import type { TokenUsage } from '../../core/usage';
import { openSealedValue, sealValue } from '../../run-state/sealed-value';
import { configHash } from '../../trace/digest';
import {
	newRunStateId,
	openRunState,
	RunStateError,
	signRunState,
	USED_STATE_MEMORY_DAYS,
	type SignedRunState,
	type StateAge,
} from '../../run-state/signed-state';
import { readableStep } from '../../trace/readable-step';
import type { Redactor } from '../../trace/redact';
import type { ToolUsage, TraceStep } from '../../trace/types';
import type { AgentConfig } from '../../settings/config';
import type { RepeatSnapshot } from '../base/streaks';
import { heldFiles } from '../setup/input-files';
import { batchView, pendingAsBatch, type BatchState } from './calls-state';
import type { ApprovalDecision } from './decision';
import type { PlanRun } from '../base/plan-run';
export type { ApprovalDecision, CallDecision } from './decision';

/**
 * Everything a run needs to go on from a step, as the run had it (secrets included): what a paused run's
 * state holds, and a durable run's checkpoint (see checkpoints.ts). `pending` is the call the step asked
 * for and that has not run (yet).
 */
export interface RunProgress {
	/** The step that asked for the pending call (the run answers it and goes on from there), or the last completed step. */
	step: number;
	/** The call waiting, exactly as the model asked for it. */
	pending?: { tool: string; args: Record<string, unknown> };
	/** The step's batch part way through (issue #42): the run goes on with it at `step`. */
	batch?: BatchState;
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
	/** Plan mode (issue #51): the plan the run executes, its steps' args exact (sealed). */
	plan?: PlanRun;
}

/**
 * Everything a run paused for approval needs to continue: its progress, with the call waiting for a person (a
 * run whose plan waits instead, see plan/plan-approval.ts, has neither `pending` nor `batch`).
 */
export interface PausedRun extends RunProgress {
	pending: { tool: string; args: Record<string, unknown> };
	/** The step's calls, the pending one among them (one action: a batch of one; see openProgress). */
	batch: BatchState;
}

/**
 * A run going on from where it stopped: a paused run with the person's decision on its pending call; or a
 * durable run's checkpoint (see checkpoints.ts), after its last completed step or inside a step's calls
 * (no decision: a call that started and was never recorded runs again only when it may; see run-calls.ts).
 */
export interface Resumed {
	paused: RunProgress;
	decision?: ApprovalDecision;
}

/** How long a used run state is remembered (so it cannot be resumed twice): thirty days, the longest a state may live. */
export const USED_STATE_TTL_SECONDS = USED_STATE_MEMORY_DAYS * 86_400;

/** The observation the model gets for a refused call. */
export function refusalObservation(tool: string, reason: string): string {
	return (
		`A person refused this ${tool} call, and it was not run. Their reason: ${reason || '(none given)'}. ` +
		`Do not make the same call again; answer without it, or ask for what is missing.`
	);
}

/**
 * The parts of a run's progress that must come back exactly, and that the redactor would change: the
 * pending call (approve runs what the model asked for, not `[REDACTED]`), what the model and the user said,
 * what the loop breaker remembers (it compares exact calls) and the trusted text. They travel sealed
 * (AES-256-GCM).
 */
type ExactPart = Pick<
	RunProgress,
	'conversation' | 'new_user_message' | 'repeats' | 'trusted_text' | 'batch' | 'plan'
> & { tool?: string; args?: Record<string, unknown> };

/** What anyone reading a run state sees: redacted like every output, the exact parts only sealed. */
type ReadablePart = Omit<RunProgress, keyof ExactPart>;

/** The hash a paused run's config is known by: the maximum age is the resuming side's rule, and may change meanwhile. */
export const stateConfigHash = (config: AgentConfig) =>
	configHash({
		...(config as unknown as Record<string, unknown>),
		run_state_max_age_days: undefined,
	});

/**
 * A paused run's output fields: `pending_action` (the call, redacted, for the person who decides) and the
 * signed `run_state` (see signProgress).
 */
export function pausedOutput(
	paused: PausedRun,
	redactor: Redactor,
	secret: string,
	config: AgentConfig,
): Record<string, unknown> {
	const state = signProgress(paused, redactor, secret, config);
	// For whoever approves: every file the run holds (the question's and those tools returned), by reference.
	const held = heldFiles(paused.conversation);
	const { batch } = paused;
	// A batch lists every call with how it stands, so a person sees what ran and decides each waiting call.
	const needsApproval = (tool: string) => config.approval_required.includes(tool);
	const inBatch = batch &&
		batch.form !== 'action' && {
			call: (batch.waiting ?? 0) + 1,
			batch: redactor.value(batchView(batch, needsApproval)),
		};
	return {
		pending_action: { ...state.payload.pending, ...inBatch },
		...(held.length ? { files_held: held } : {}),
		run_state: state,
	};
}

/**
 * A run's progress as a signed run state, whose readable part is redacted before it is signed (an
 * output's redaction then leaves it and its signature as they are) and whose exact part is sealed. `extra`
 * is signed with it (a checkpoint's run key).
 */
export function signProgress(
	progress: RunProgress,
	redactor: Redactor,
	secret: string,
	config: AgentConfig,
	extra: Record<string, unknown> = {},
): SignedRunState<ReadablePart> {
	const {
		step,
		pending,
		batch,
		conversation,
		new_user_message,
		trace,
		usage,
		used_tools,
		tool_calls,
		cost,
		failures,
		repeats,
		trusted_text,
		plan,
	} = progress;
	const id = newRunStateId();
	const exact: ExactPart = {
		...(pending ? { tool: pending.tool, args: pending.args } : {}),
		...(batch ? { batch } : {}),
		conversation,
		new_user_message,
		repeats,
		trusted_text,
		...(plan ? { plan } : {}),
	};
	const readable: ReadablePart = redactor.value({
		step,
		...(pending ? { pending } : {}),
		trace: trace.map(readableStep),
		usage,
		used_tools,
		tool_calls,
		cost,
		failures,
	});
	return signRunState(
		{ ...extra, ...readable, sealed: sealValue(exact, secret, id) },
		secret,
		stateConfigHash(config),
		{ id },
	);
}

/**
 * The paused run a state holds, once its size, signature, age and config check out and its sealed part
 * opens (RunStateError otherwise), with the state's one-time id.
 */
export function openPausedRun(
	state: unknown,
	secret: string,
	config: AgentConfig,
	now?: number,
): { id: string; paused: PausedRun } {
	const { id, progress, payload } = openProgress(state, secret, stateConfigHash(config), {
		maxAgeDays: config.run_state_max_age_days,
		now,
	});
	// A durable run's checkpoint is signed alike; it never resumes as a paused run.
	const waits = progress.pending || progress.plan?.phase === 'awaiting_approval';
	if (!waits || 'checkpoint' in payload)
		throw new RunStateError(
			"run_state's sealed part is not a paused call: pass the run_state of the paused run's output, unchanged",
		);
	return { id, paused: progress as PausedRun };
}

/**
 * The progress a signed state holds (see signProgress), with the state's id and the payload's other fields,
 * once it checks out for the config of `hash` (see stateConfigHash); RunStateError otherwise.
 */
export function openProgress(
	state: unknown,
	secret: string,
	hash: string,
	age: StateAge,
): { id: string; progress: RunProgress; payload: Record<string, unknown> } {
	const payload = openRunState<ReadablePart & { sealed: unknown }>(state, secret, hash, age);
	const exact = openSealedValue(payload.sealed, secret, payload.id) as ExactPart;
	const badCall =
		exact?.tool !== undefined &&
		(typeof exact.tool !== 'string' || typeof exact.args !== 'object' || exact.args === null);
	if (!Array.isArray(exact?.conversation) || badCall || !batchShape(exact.batch)) {
		throw new RunStateError(
			"run_state's sealed part is not a run's progress: pass the run_state of the paused run's output, unchanged",
		);
	}
	const { step, trace, usage, used_tools, tool_calls, cost, failures } = payload;
	const { tool, args, batch, conversation, new_user_message, repeats, trusted_text, plan } = exact;
	const pending = tool === undefined ? {} : { pending: { tool, args: args! } };
	// A state sealed before one action was a batch of one holds its call alone: it goes on as such a batch.
	const calls =
		batch ??
		(tool === undefined
			? undefined
			: pendingAsBatch({ tool, args: args! }, 'checkpoint' in payload));
	return {
		id: payload.id,
		payload: payload as unknown as Record<string, unknown>,
		progress: {
			step,
			...pending,
			...(calls ? { batch: calls } : {}),
			conversation,
			new_user_message,
			trace,
			usage,
			used_tools,
			tool_calls,
			cost,
			failures,
			repeats,
			trusted_text,
			...(plan ? { plan } : {}),
		},
	};
}

/** Whether a sealed batch has the shape the run reads (it was sealed by this code; a bad one is never resumed). */
function batchShape(batch: unknown): boolean {
	if (batch === undefined) return true;
	const { calls, settled, started } = (batch ?? {}) as Partial<BatchState>;
	return (
		Array.isArray(calls) &&
		calls.every(
			(call) =>
				typeof call?.tool === 'string' && typeof call.args === 'object' && call.args !== null,
		) &&
		typeof settled === 'object' &&
		settled !== null &&
		Array.isArray(started)
	);
}
