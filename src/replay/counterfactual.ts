// Counterfactual replay (issue #33): a recorded run asked again of a candidate model or config, every recorded call answered from the record.
import type { AuditRecord } from '../audit/record';
import type { ChatModel } from '../providers/chat-model';
import { ToolRegistry } from '../tools/registry';
import type { AgentResult, FinishReason, TraceStep } from '../trace/types';
import { callsThatRan } from '../trace/readable-step';
import { canonicalJson } from '../validation/canonical-json';
import { resolveConfig } from '../settings/config';
import { toolSecrets } from '../agent/calls/execute-tool';
import { trustRecord, type RecordMismatch } from './record-trust';
import { recordedTools, type UnrecordedCall } from './recorded-tools';
import { AgentRun } from '../agent/run-agent';
import type { RunAgentOptions } from '../agent/base/run-options';
import { runCost } from '../agent/model/shared-budget';

import { questionWithFiles } from './record-files';
import { checkCandidate, type Candidate } from './candidate';

/** How a run ended, as a word: a candidate that loops, breaks the protocol or refuses shows as such. */
export type RunBehaviour =
	| 'answered'
	| 'looped'
	| 'broke_protocol'
	| 'refused'
	| 'failed'
	| 'stopped';

/** One side of the comparison: the recorded run, or the candidate's run of the same question. */
export interface RunFigures {
	model: string;
	finish_reason: FinishReason;
	behaviour: RunBehaviour;
	final_answer: string;
	steps: number;
	tool_calls: number;
	tokens: number;
	/** USD from the model catalogue (else the config's `prices`); null when a model has no price. */
	cost: number | null;
	elapsed_ms: number;
}

/** Where the candidate first did something other than the record: the step, and what each did there. */
export interface Divergence {
	step: number;
	recorded: string;
	candidate: string;
}

/** One recorded run against the candidate. */
export interface CounterfactualRunReport {
	run_id: string;
	same_answer: boolean;
	same_actions: boolean;
	first_divergence: Divergence | null;
	recorded: RunFigures;
	candidate: RunFigures;
	/** Tool calls answered with the recorded observation or error: nothing ran. */
	answered_from_record: number;
	/** Read-only calls the record did not have, run for real (`--run-read-only`). */
	ran_read_only: UnrecordedCall[];
	/** Calls the record did not have and that were not run (side effects, or read-only without `--run-read-only`). */
	refused_calls: UnrecordedCall[];
	/** With `unverified`, a stored run that did not verify: the first part that did not (see verifyRecord). */
	unverified?: RecordMismatch;
}

const BEHAVIOUR: Partial<Record<FinishReason, RunBehaviour>> = {
	final: 'answered',
	loop: 'looped',
	parse_error: 'broke_protocol',
	max_output_tokens: 'broke_protocol',
	output_invalid: 'broke_protocol',
	content_filter: 'refused',
	llm_error: 'failed',
	timeout: 'failed',
	tool_error: 'failed',
};
const behaviourOf = (reason: FinishReason): RunBehaviour => BEHAVIOUR[reason] ?? 'stopped';

/** What a step did, in a line: its call, its answer, or how it failed. */
export function whatStepDid(step: TraceStep | undefined): string {
	if (!step) return 'nothing (the run had ended)';
	const failed = step.error ? ` (${step.error.type}: ${step.error.message.slice(0, 200)})` : '';
	// Plan mode (issue #51): the plan a reply sent, and the plan steps a step without a model call ran.
	if (step.plan)
		return `a plan of ${step.plan.length} steps [${step.plan.map(({ tool, args }) => `${tool} ${canonicalJson(args)}`).join('; ')}]`;
	const ran = step.plan_steps ? `plan step ${step.plan_steps.join(', ')}: ` : '';
	if (step.action) return `${ran}${step.action.tool} ${canonicalJson(step.action.args)}${failed}`;
	if (step.calls)
		return `${ran}actions [${step.calls.map((call) => `${call.tool} ${canonicalJson(call.args)}`).join('; ')}]${failed}`;
	if (step.final !== undefined) return `answer ${JSON.stringify(step.final.answer).slice(0, 300)}`;
	return step.error
		? `${step.error.type}: ${step.error.message.slice(0, 200)}`
		: 'no action and no answer';
}

const stepKey = (step: TraceStep | undefined) =>
	canonicalJson(
		step
			? {
					action: step.action ?? null,
					// A batch: its calls, in order (a candidate that batches differently diverges here).
					calls: step.calls?.map(({ tool, args }) => ({ tool, args })) ?? null,
					final: step.final?.answer ?? null,
					error: step.error?.type ?? null,
					plan: step.plan?.map(({ tool, args }) => ({ tool, args })) ?? null,
					plan_steps: step.plan_steps ?? null,
				}
			: null,
	);
const actionsOf = (trace: readonly TraceStep[]) =>
	canonicalJson(
		trace.flatMap((step) =>
			step.action ? [step.action] : (step.calls ?? []).map(({ tool, args }) => ({ tool, args })),
		),
	);

/** The first step at which the two runs did different things, or null when they did the same throughout. */
export function firstDivergence(
	recorded: readonly TraceStep[],
	candidate: readonly TraceStep[],
): Divergence | null {
	for (let index = 0; index < Math.max(recorded.length, candidate.length); index++) {
		if (stepKey(recorded[index]) !== stepKey(candidate[index])) {
			return {
				step: recorded[index]?.step ?? candidate[index]?.step ?? index + 1,
				recorded: whatStepDid(recorded[index]),
				candidate: whatStepDid(candidate[index]),
			};
		}
	}
	return null;
}

/** The replay config: the candidate's (or the recorded) config, without what a replay leaves out; its tool settings kept apart. */
function replayConfig(
	record: AuditRecord,
	candidate: Candidate,
): { config: Record<string, unknown>; settings: Record<string, Record<string, unknown>> } {
	const {
		shared_budget: _budget,
		tool_settings: settings,
		...base
	} = candidate.config ?? record.config;
	return {
		config: {
			...base,
			...(candidate.modelName ? { model: candidate.modelName } : {}),
			approval_required: [],
			// Nobody approves a plan in a replay: its steps' calls are answered from the record, or refused.
			approve_plan: false,
			tool_settings: {},
		},
		settings: (settings ?? {}) as Record<string, Record<string, unknown>>,
	};
}

/**
 * Asks a recorded run's question (its stored user message) again of a candidate model or config, through the
 * same loop: every tool call whose tool and canonical args the record has is answered with the recorded
 * observation or error, a read-only call it lacks runs only with `runReadOnly`, and every other call is
 * refused (the model is told) and reported — nothing with side effects ever runs, as the real tool's rule
 * judges it (see sideEffectsRule). Throws UnverifiedRecordError for a run whose record chain does not verify
 * (unless `candidate.unverified`), ConfigError or SchemaError for a config today's checks refuse.
 */
export async function counterfactualReplay(
	record: AuditRecord,
	candidate: Candidate,
): Promise<CounterfactualRunReport> {
	checkCandidate(candidate);
	const mismatch = trustRecord(record, candidate.unverified);
	const { config, settings } = replayConfig(record, candidate);
	let turn = 0;
	// Counts model calls, so a call not in the record is placed near its step (placeCalls makes it exact after the run).
	const counted = (model: ChatModel): ChatModel => ({
		provider: model.provider,
		modelName: model.modelName,
		secrets: model.secrets,
		generate: (request) => (turn++, model.generate(request)),
	});
	const allowedNames = Array.isArray(config.allowed_tools)
		? (config.allowed_tools as unknown[]).filter((name): name is string => typeof name === 'string')
		: [];
	const { tools, ledger } = recordedTools({
		record,
		mode: { kind: 'counterfactual', runReadOnly: candidate.runReadOnly === true },
		extraNames: allowedNames,
		realTools: candidate.tools,
		settings,
		currentTurn: () => turn,
	});
	const registry = new ToolRegistry(tools);
	// The settings handed to the tools that really run (read-only calls) are checked as a run checks them.
	resolveConfig({ ...config, tool_settings: settings } as never, registry);
	const resolved = resolveConfig(config, registry);
	const allowed = new Map(resolved.allowed_tools.map((name) => [name, registry.get(name)!]));
	const secrets = [
		...(candidate.secrets ?? []),
		...toolSecrets(new Map(tools.map((tool) => [tool.name, tool])), settings),
	];
	const options: RunAgentOptions = {
		model: counted(candidate.model),
		...(candidate.fallbackModel ? { fallbackModel: counted(candidate.fallbackModel) } : {}),
		config: config as RunAgentOptions['config'],
		secrets,
		...(candidate.signal ? { signal: candidate.signal } : {}),
	};
	const user = questionWithFiles(record, candidate.files, resolved);
	// The history ends with the question, as runAgent hands it over (see normaliseInput).
	const result = await new AgentRun(options, resolved, allowed, [user], user).run();

	const recordedTrace = record.steps.map((entry) => entry.step);
	placeCalls(ledger.refused, result.trace);
	placeCalls(ledger.ranReadOnly, result.trace);
	return {
		run_id: record.run_id,
		same_answer:
			result.final_answer === record.final_answer && result.finish_reason === record.finish_reason,
		same_actions: actionsOf(recordedTrace) === actionsOf(result.trace),
		first_divergence: firstDivergence(recordedTrace, result.trace),
		recorded: recordedFigures(record),
		candidate: candidateFigures(result),
		answered_from_record: ledger.answeredFromRecord,
		ran_read_only: ledger.ranReadOnly,
		refused_calls: ledger.refused,
		...(mismatch ? { unverified: mismatch } : {}),
	};
}

/** Each unrecorded call's step, from the candidate's trace (a failover calls two models in one step, so the call count is not it). */
function placeCalls(calls: UnrecordedCall[], trace: readonly TraceStep[]): void {
	let from = 0;
	for (const call of calls) {
		const index = trace.findIndex(
			(step, position) =>
				position >= from &&
				step.action?.tool === call.tool &&
				canonicalJson(step.action.args) === canonicalJson(call.args),
		);
		if (index < 0) continue;
		call.step = trace[index].step;
		from = index + 1;
	}
}

function recordedFigures(record: AuditRecord): RunFigures {
	const trace = record.steps.map((entry) => entry.step);
	// Rows from before chain version 3 stored no run cost: their steps' costs still say it.
	const cost =
		record.cost !== undefined ? (record.cost?.total ?? null) : (runCost(trace)?.total ?? null);
	return {
		model: record.model,
		finish_reason: record.finish_reason,
		behaviour: behaviourOf(record.finish_reason),
		final_answer: record.final_answer,
		steps: trace.length,
		tool_calls: callsThatRan(trace),
		tokens: record.usage.total_tokens,
		cost,
		elapsed_ms: record.elapsed_ms,
	};
}

function candidateFigures(result: AgentResult): RunFigures {
	return {
		model: result.model,
		finish_reason: result.finish_reason,
		behaviour: behaviourOf(result.finish_reason),
		final_answer: result.final_answer,
		steps: result.trace.length,
		tool_calls: callsThatRan(result.trace),
		tokens: result.usage.total_tokens,
		cost: result.cost,
		elapsed_ms: result.elapsed_ms,
	};
}
