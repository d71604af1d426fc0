// One audited run's recorded input, replies, calls, observations and answers through a hook chain (issue #50):
// what the chain would have decided at each point, and where the run would have ended otherwise. Nothing runs.
import type { AuditRecord } from '../../audit/record';
import { HookChain, type ChainOutcome, type HookPlace } from '../../agent/hooks';
import type { GuardrailDecision, HookPoint, StepError, TraceStep } from '../../trace/types';
import type { ReplayedDecision, RunGuardrailsReport, WouldEnd } from './report-types';

/** One recorded call of a step: its tool, args, number in a batch, and what it returned (an error's text too). */
interface RecordedCall {
	tool: string;
	args: Record<string, unknown>;
	call?: number;
	returned?: string;
	/** Answered by the loop breaker from an earlier call: it did not run, after_tool never saw it. */
	repeat: boolean;
}

/** The tool errors whose text went through after_tool (what the call returned); others never reached a tool. */
const RETURNED_ERRORS: ReadonlySet<StepError['type']> = new Set(['tool_error', 'tool_timeout']);

function callsOf(entry: TraceStep): RecordedCall[] {
	if (entry.action) {
		const error = entry.error && RETURNED_ERRORS.has(entry.error.type) ? entry.error : undefined;
		return [
			{
				...entry.action,
				returned: entry.observation ?? error?.message,
				repeat: entry.repeat_of !== undefined,
			},
		];
	}
	return (entry.calls ?? []).map((one, index) => ({
		tool: one.tool,
		args: one.args,
		call: index + 1,
		returned: one.observation ?? one.error?.message,
		repeat: one.repeat_of !== undefined,
	}));
}

/**
 * Whether the step's calls reached before_tool: the run checks the whitelist and every call's args first, and
 * a batch what its tools refuse before running; a step refused there ran no hook (one call refused by its
 * own tool as it ran, egress, did).
 */
function reachedTools(entry: TraceStep, allowed: ReadonlySet<string>): boolean {
	const type = entry.error?.type;
	if (type === 'invalid_args') return false;
	if (type !== 'tool_not_allowed') return true;
	return entry.action !== undefined && allowed.has(entry.action.tool);
}

const sameCall = (one: GuardrailDecision, call: RecordedCall) =>
	one.tool === call.tool && one.call === call.call;

/** How a block's stop_detail begins (see HookChain.run): who blocked and where. */
const blockedBy = (one: GuardrailDecision) =>
	`${one.by === 'guardrail' ? `guardrail "${one.name}"` : one.name} blocked the run at ${one.point}`;

/**
 * Runs `chain` over the recorded run, in the order the run met its points: before_run on the user's message,
 * then per step after_model on the stored reply, before_tool on each call's args, after_tool on what each call
 * that ran returned, after_run on the answer. A block ends the walk (the run would have ended there); a deny
 * goes on, the decisions after it marked `after_divergence`. The record is verified by the caller.
 */
export async function guardRecord(
	record: AuditRecord,
	chain: HookChain,
): Promise<RunGuardrailsReport> {
	const decisions: ReplayedDecision[] = [];
	const checked = { input: false, replies: 0, tool_calls: 0, observations: 0, answers: 0 };
	let divergence: WouldEnd | undefined;
	const lastStep = record.steps.at(-1)?.step.step ?? 0;
	const at = async (
		point: HookPoint,
		place: HookPlace,
		value: unknown,
	): Promise<{ outcome: ChainOutcome; taken: GuardrailDecision[] }> => {
		const taken: GuardrailDecision[] = [];
		const outcome = await chain.run(point, place, value, taken);
		for (const one of taken) decisions.push(shown(one, place.step, divergence !== undefined));
		return { outcome, taken };
	};
	/** A block: the run would have ended here, unless the record ended here the same way. */
	const blocked = (taken: GuardrailDecision[], step: number): RunGuardrailsReport => {
		const by = taken.find((one) => one.decision === 'block')!;
		const same =
			record.finish_reason === 'guardrail' &&
			(step === 0 || step === lastStep) &&
			(record.stop_detail ?? '').startsWith(blockedBy(by));
		if (!same) divergence ??= wouldEnd(by, step, 'blocked');
		return report(record, decisions, checked, divergence);
	};

	const question = record.messages[0];
	if (question?.role === 'user' && typeof question.content === 'string') {
		checked.input = true;
		const { outcome, taken } = await at('before_run', { step: 0 }, question.content);
		if (outcome.next === 'block') return blocked(taken, 0);
	}
	const allowed = new Set(record.tools.map((tool) => tool.name));
	for (const { step: entry, reply } of record.steps) {
		const step = entry.step;
		if (typeof reply === 'string' && chain.has('after_model')) {
			checked.replies++;
			const { outcome, taken } = await at('after_model', { step }, reply);
			if (outcome.next === 'block') return blocked(taken, step);
		}
		const calls = reachedTools(entry, allowed) ? callsOf(entry) : [];
		const recorded = entry.guardrails ?? [];
		const denied = new Set<RecordedCall>();
		for (const call of calls) {
			checked.tool_calls++;
			const place = {
				step,
				tool: call.tool,
				...(call.call !== undefined ? { call: call.call } : {}),
			};
			const { outcome, taken } = await at('before_tool', place, call.args);
			if (outcome.next === 'block') return blocked(taken, step);
			const wasDenied = recorded.some(
				(one) => one.decision === 'deny' && one.point === 'before_tool' && sameCall(one, call),
			);
			if (wasDenied) denied.add(call);
			if (outcome.next !== 'deny') continue;
			denied.add(call);
			if (!wasDenied)
				divergence ??= wouldEnd(taken.find((one) => one.decision === 'deny')!, step, 'denied');
		}
		for (const call of calls) {
			if (denied.has(call) || call.repeat || call.returned === undefined) continue;
			checked.observations++;
			const place = {
				step,
				tool: call.tool,
				...(call.call !== undefined ? { call: call.call } : {}),
			};
			const { outcome, taken } = await at('after_tool', place, call.returned);
			if (outcome.next === 'block') return blocked(taken, step);
		}
		if (entry.final !== undefined) {
			checked.answers++;
			const { outcome, taken } = await at('after_run', { step }, entry.final.answer);
			if (outcome.next === 'block') return blocked(taken, step);
		}
	}
	return report(record, decisions, checked, divergence);
}

/** A decision as the report shows it: who, where and what, never what was seen (hashes are left to the audit). */
function shown(one: GuardrailDecision, step: number, afterDivergence: boolean): ReplayedDecision {
	return {
		name: one.name,
		by: one.by,
		point: one.point,
		decision: one.decision,
		step,
		...(one.tool !== undefined ? { tool: one.tool } : {}),
		...(one.call !== undefined ? { call: one.call } : {}),
		...(one.reason !== undefined ? { reason: one.reason } : {}),
		...(afterDivergence ? { after_divergence: true as const } : {}),
	};
}

function wouldEnd(one: GuardrailDecision, step: number, how: WouldEnd['how']): WouldEnd {
	return {
		how,
		name: one.name,
		by: one.by,
		point: one.point,
		step,
		...(one.tool !== undefined ? { tool: one.tool } : {}),
		...(one.call !== undefined ? { call: one.call } : {}),
	};
}

function report(
	record: AuditRecord,
	decisions: ReplayedDecision[],
	checked: RunGuardrailsReport['checked'],
	divergence: WouldEnd | undefined,
): RunGuardrailsReport {
	return {
		run_id: record.run_id,
		...(record.workflow_id !== undefined ? { workflow_id: record.workflow_id } : {}),
		created_at: new Date(record.created_at).toISOString(),
		recorded: { finish_reason: record.finish_reason, steps: record.steps.length },
		ends_differently: divergence !== undefined,
		...(divergence ? { would_end: divergence } : {}),
		decisions,
		checked,
	};
}
