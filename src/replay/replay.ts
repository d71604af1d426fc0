// Offline replay (issue #19): a stored run's loop again, every model turn and tool call answered from the verified record.
import type { AuditRecord } from '../audit/record';
import { RecordedTurns } from './recorded-turns';
import type { ChatModel, ChatRequest, ChatResponse } from '../providers/chat-model';
import { builtInTools, ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';
import type { TraceStep } from '../trace/types';
import { canonicalJson } from '../validation/canonical-json';
import { resolveConfig } from '../settings/config';
import {
	RECORD_TRUST_OPTIONS,
	trustRecord,
	type RecordMismatch,
	type RecordTrustOptions,
} from './record-trust';
import { checkKnownOptions } from '../core/known-options';
import { sideEffectsRule } from './recorded-tools';
import { AgentRun } from '../agent/run-agent';
import type { RunAgentOptions } from '../agent/base/run-options';

/** What `audit replay` found: the run again, offline, beside what the record says it did. */
export interface ReplayReport {
	run_id: string;
	/** True when the replay reached the recorded finish reason and answer, with the same action at every step. */
	same: boolean;
	recorded: { finish_reason: string; final_answer: string; steps: number };
	replayed: { finish_reason: string; final_answer: string; steps: number };
	/** What differs, step by step (at most 20 lines). */
	differences: string[];
	/** Model turns and tool calls answered from the record; no model and no tool was asked. */
	answered_from_record: { model_turns: number; tool_calls: number };
	/** With `unverified`, a stored run that did not verify: the first part that did not (see verifyRecord). */
	unverified?: RecordMismatch;
}

const MAX_DIFFERENCES = 20;

/**
 * Runs a stored run's loop again without a model or a tool (issue #19): the model's turns are the stored
 * replies, each action goes through the same whitelist, argument schemas, limits, loop breaker and
 * answer check as recorded (the stored config and tool schemas), and each call that ran is answered
 * with its recorded observation or error instead of running. A step the record has no reply for (one before
 * a resume) is rebuilt from its recorded action or answer. Shared budgets, approvals and tool settings are
 * left out: their outcome is in the record already (an approved, denied or edited call's observation).
 * The record chain is verified first: a run that does not verify throws UnverifiedRecordError unless
 * `unverified` is given, and then the report names the part that did not.
 */
export async function replayRecord(
	record: AuditRecord,
	options: RecordTrustOptions = {},
): Promise<ReplayReport> {
	checkKnownOptions('replayRecord', options, RECORD_TRUST_OPTIONS);
	const mismatch = trustRecord(record, options.unverified);
	let turn = 0;
	let toolCalls = 0;
	const differences: string[] = [];
	// By model turn: a plan's steps ran without one, their calls answered in the turn that sent the plan.
	const turns = new RecordedTurns(record);
	const model: ChatModel = {
		provider: 'replay',
		async generate(_request: ChatRequest): Promise<ChatResponse> {
			return turns.response(++turn);
		},
	};
	const realTools = new Map(builtInTools.map((tool) => [tool.name, tool]));
	const standIns: Tool[] = record.tools.map((tool) => ({
		name: tool.name,
		description: `${tool.name} (answered from the audit record)`,
		parameters: tool.schema,
		sideEffects: sideEffectsRule(tool.side_effects, realTools.get(tool.name)),
		async execute(args: Record<string, unknown>) {
			toolCalls++;
			const recorded = turns.take(turn, tool.name, args);
			if (!recorded) {
				const step = turns.stepOf(turn)?.step.step ?? turn;
				throw new Error(
					`replay: step ${step} called ${tool.name} ${JSON.stringify(args)}, which the record does not have`,
				);
			}
			if ('observation' in recorded.outcome) return recorded.outcome.observation;
			throw new Error(recorded.outcome.error);
		},
	}));
	const { shared_budget: _budget, ...recordedConfig } = record.config;
	const config = {
		...recordedConfig,
		approval_required: [],
		// The plan's approval is in the record already: a plan a person edited replays as they approved it.
		approve_plan: false,
		tool_settings: {},
	} as unknown as RunAgentOptions['config'];
	const registry = new ToolRegistry(standIns);
	const resolved = resolveConfig(config, registry);
	const allowed = new Map(resolved.allowed_tools.map((name) => [name, registry.get(name)!]));
	const user = record.messages[0] ?? { role: 'user' as const, content: '' };
	const result = await new AgentRun({ model, config }, resolved, allowed, [], user).run();

	compareSteps(
		record.steps.map((entry) => entry.step),
		result.trace,
		differences,
	);
	if (result.finish_reason !== record.finish_reason)
		differences.unshift(
			`finish_reason: recorded ${record.finish_reason}, replayed ${result.finish_reason}`,
		);
	if (result.final_answer !== record.final_answer) differences.unshift('final_answer differs');
	return {
		run_id: record.run_id,
		same: differences.length === 0,
		recorded: {
			finish_reason: record.finish_reason,
			final_answer: record.final_answer,
			steps: record.steps.length,
		},
		replayed: {
			finish_reason: result.finish_reason,
			final_answer: result.final_answer,
			steps: result.trace.length,
		},
		differences: differences.slice(0, MAX_DIFFERENCES),
		answered_from_record: { model_turns: turn, tool_calls: toolCalls },
		...(mismatch ? { unverified: mismatch } : {}),
	};
}

/** Differences in what each step did: its action, and whether it failed (and how). */
function compareSteps(
	recorded: readonly TraceStep[],
	replayed: readonly TraceStep[],
	differences: string[],
): void {
	if (recorded.length !== replayed.length)
		differences.push(`steps: recorded ${recorded.length}, replayed ${replayed.length}`);
	for (let index = 0; index < Math.min(recorded.length, replayed.length); index++) {
		const [before, after] = [recorded[index], replayed[index]];
		if (canonicalJson(before.action) !== canonicalJson(after.action))
			differences.push(
				`step ${before.step}: recorded action ${JSON.stringify(before.action ?? null)}, replayed ${JSON.stringify(after.action ?? null)}`,
			);
		if (before.error?.type !== after.error?.type)
			differences.push(
				`step ${before.step}: recorded error ${before.error?.type ?? 'none'}, replayed ${after.error?.type ?? 'none'}`,
			);
		if (before.observation !== after.observation)
			differences.push(`step ${before.step}: the observation differs`);
		if (callsOf(before) !== callsOf(after))
			differences.push(`step ${before.step}: the calls differ`);
		if (canonicalJson(before.plan_steps ?? null) !== canonicalJson(after.plan_steps ?? null))
			differences.push(
				`step ${before.step}: recorded plan steps ${JSON.stringify(before.plan_steps ?? null)}, replayed ${JSON.stringify(after.plan_steps ?? null)}`,
			);
	}
}

/** A batch's calls as they came out (their times left out). */
const callsOf = (step: TraceStep) =>
	canonicalJson(
		step.calls?.map(({ tool, args, observation, error }) => ({
			tool,
			args,
			observation: observation ?? null,
			error: error?.type ?? null,
		})) ?? null,
	);
