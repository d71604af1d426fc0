// An "actions" reply run as one step (issue #42): every call checked first, then read-only runs together, side effects alone, in order.
import type { AgentConfig } from '../settings/config';
import type { Tool } from '../tools/tool';
import type { FinishReason, StepError, TraceCall, TraceStep } from '../trace/types';
import type { FileInput, RunFile } from '../files';
import { type ToolCallRequest, callLabel } from './protocol/actions-turn';
import { batchObservationMessage } from './protocol/prompt';
import { checkToolCall, type ToolOutcome } from './execute-tool';
import { fileRefs } from './input-files';
import { callKey, hasSideEffects, type RepeatedCalls } from './repeated-calls';
import { failedStep, type StepOutcome } from './step-outcome';

/** What the batch needs from its run: the run's own parts, lent for one step. */
export interface BatchHost {
	config: AgentConfig;
	tools: ReadonlyMap<string, Tool>;
	repeats: RepeatedCalls;
	/** A durable run (run key): it checkpoints per step, so a batch there takes no call with side effects yet. */
	readonly isDurable: boolean;
	/** Why the tool would refuse this call before it runs (egress, say; see Tool.refusalBeforeRun). */
	refusalBeforeRun(tool: Tool, name: string, args: Record<string, unknown>): string | undefined;
	/** Takes one of max_tool_calls' slots; false when none is left. */
	takeToolCall(): boolean;
	/** Runs one checked call under its own timeout (the run's runTool request). */
	callTool(
		tool: Tool,
		name: string,
		args: Record<string, unknown>,
		step: number,
	): Promise<ToolOutcome>;
	/** Counts a call that ran in used_tools. */
	countUse(name: string, ms: number, ok: boolean): void;
	/** The files a call returned, taken under the run's caps: its observation with notes, and the files that go with it. */
	takeFiles(
		observation: string,
		returned: readonly FileInput[],
	): { observation: string; files: RunFile[] };
	/** The listener's action and observation events for one call. */
	tellAction(step: number, tool: string, args: Record<string, unknown>): void;
	tellObservation(step: number, tool: string, ok: boolean, text: string): void;
	/** The step's one observation message, with the calls' files. */
	pushObservations(content: string, files: RunFile[]): void;
	/** The run's signal fired while the batch ran. */
	aborted(): StepOutcome;
}

/** How a planned call is answered: run, answered from an earlier call, or not run because a limit was reached. */
type Plan =
	| { kind: 'run'; tool: Tool; key: string; readOnly: boolean }
	| { kind: 'answer'; observation: string; of: number | string }
	| { kind: 'same'; as: number }
	| { kind: 'limit'; observation: string; reason: FinishReason };

/**
 * Runs the batch as one step. Nothing runs unless every call passes the whitelist, its args schema and
 * approval. Then each call in order: a repeat within the batch is answered once, the loop breaker and
 * max_tool_calls decide per call, consecutive calls without side effects run together (a batch never holds
 * more than max_parallel_calls), and a call with side effects waits for those before it and runs alone.
 */
export async function runBatch(
	host: BatchHost,
	entry: TraceStep,
	calls: readonly ToolCallRequest[],
): Promise<StepOutcome> {
	const records: TraceCall[] = calls.map(({ tool, args }) => ({ tool, args, elapsed_ms: 0 }));
	entry.calls = records;
	const checked = checkAll(host, calls);
	if ('error' in checked) return failedStep(entry, checked.error, 'tool_error');
	for (const call of calls) host.tellAction(entry.step, call.tool, call.args);

	const { plans, ended } = plan(host, checked.tools, calls, entry.step);
	const outcomes: Array<ToolOutcome | undefined> = [];
	let group: number[] = [];
	const runGroup = async () => {
		const ran = await Promise.all(
			group.map((index) =>
				host.callTool(checked.tools[index], calls[index].tool, calls[index].args, entry.step),
			),
		);
		group.forEach((index, at) => (outcomes[index] = ran[at]));
		group = [];
	};
	const started = performance.now();
	for (const [index, planned] of plans.entries()) {
		if (planned.kind !== 'run') continue;
		if (!planned.readOnly) {
			await runGroup();
			group = [index];
			await runGroup();
		} else group.push(index);
	}
	await runGroup();
	entry.tool_ms = Math.round(performance.now() - started);
	return observe(host, entry, calls, plans, outcomes, records, ended);
}

/** The whitelist, each call's args, what its tool refuses before running (egress) and approval, before anything runs: the first bad call, named by its number. */
function checkAll(
	host: BatchHost,
	calls: readonly ToolCallRequest[],
): { tools: Tool[] } | { error: StepError } {
	const tools: Tool[] = [];
	for (const [index, { tool: name, args }] of calls.entries()) {
		const checked = checkToolCall(host.tools, name, args);
		const label = `${callLabel(index)} (${name})`;
		if ('error' in checked)
			return {
				error: {
					...checked.error,
					message: `${label}: ${checked.error.message}. None of the calls ran; send them again with this one fixed.`,
				},
			};
		const refused = host.refusalBeforeRun(checked.tool, name, args);
		if (refused !== undefined)
			return {
				error: {
					type: 'tool_not_allowed',
					message: `${label}: ${refused}. None of the calls ran; send them again without this one, or with it fixed.`,
				},
			};
		if (host.config.approval_required.includes(name))
			return {
				error: {
					type: 'tool_not_allowed',
					message: `${label} needs a person's approval, which a batch does not wait for. None of the calls ran; send ${name} alone, as one action.`,
				},
			};
		if (host.isDurable && hasSideEffects(checked.tool, args))
			return {
				error: {
					type: 'tool_not_allowed',
					message: `${label} has side effects, which a durable run takes one at a time. None of the calls ran; send ${name} alone, as one action.`,
				},
			};
		tools.push(checked.tool);
	}
	return { tools };
}

/** Each call's plan, decided in order before any runs, so that limits and repeats fall the same way however the calls interleave. */
function plan(
	host: BatchHost,
	tools: readonly Tool[],
	calls: readonly ToolCallRequest[],
	step: number,
): { plans: Plan[]; ended?: { reason: FinishReason; detail: string } } {
	const plans: Plan[] = [];
	const keys = new Map<string, number>();
	let ended: { reason: FinishReason; detail: string } | undefined;
	for (const [index, { tool: name, args }] of calls.entries()) {
		const tool = tools[index];
		const key = callKey(tool, args);
		const same = keys.get(key);
		if (same !== undefined) {
			plans.push({ kind: 'same', as: same });
			continue;
		}
		keys.set(key, index);
		if (ended) {
			plans.push({ kind: 'limit', observation: `not run: ${ended.detail}`, reason: ended.reason });
			continue;
		}
		const repeat = host.repeats.decide(tool, args, step);
		if (repeat.next === 'loop') {
			ended = { reason: 'loop', detail: repeat.detail };
			plans.push({ kind: 'limit', observation: `not run: ${repeat.detail}`, reason: 'loop' });
		} else if (repeat.next === 'answer')
			plans.push({ kind: 'answer', observation: repeat.observation, of: repeat.ofStep });
		else if (!host.takeToolCall()) {
			const detail = `max_tool_calls (${host.config.max_tool_calls}) reached`;
			ended = { reason: 'max_tool_calls', detail };
			plans.push({
				kind: 'limit',
				observation: `${name} was not run: ${detail}`,
				reason: 'max_tool_calls',
			});
		} else plans.push({ kind: 'run', tool, key, readOnly: !hasSideEffects(tool, args) });
	}
	return { plans, ended };
}

/** Every call's observation in one message, in call order; the trace step's calls; the step's outcome. */
function observe(
	host: BatchHost,
	entry: TraceStep,
	calls: readonly ToolCallRequest[],
	plans: readonly Plan[],
	outcomes: ReadonlyArray<ToolOutcome | undefined>,
	records: TraceCall[],
	ended: { reason: FinishReason; detail: string } | undefined,
): StepOutcome {
	const texts: string[] = [];
	const files: RunFile[] = [];
	let failed = 0;
	for (const [index, planned] of plans.entries()) {
		const record = records[index];
		const name = calls[index].tool;
		let text: string;
		if (planned.kind === 'same') {
			text = texts[planned.as];
			record.repeat_of = callLabel(planned.as);
		} else if (planned.kind !== 'run') {
			text = planned.observation;
			if (planned.kind === 'answer') record.repeat_of = planned.of;
		} else {
			const outcome = outcomes[index]!;
			record.elapsed_ms = Math.round(outcome.elapsedMs);
			host.countUse(name, record.elapsed_ms, outcome.ok);
			host.repeats.record(
				planned.key,
				entry.step,
				outcome.ok ? outcome : { ok: false, message: outcome.error.message },
			);
			if (!outcome.ok) {
				if (outcome.runAborted) {
					entry.error = outcome.error;
					return host.aborted();
				}
				failed++;
				record.error = outcome.error;
				text = `Error: ${outcome.error.message}`;
			} else {
				text = outcome.observation;
				if (outcome.files) {
					const taken = host.takeFiles(text, outcome.files);
					text = taken.observation;
					files.push(...taken.files);
				}
			}
		}
		if (!record.error) record.observation = text;
		host.tellObservation(entry.step, name, !record.error, text);
		texts.push(text);
	}
	if (files.length) entry.observation_files = fileRefs(files);
	if (failed === calls.length && !ended) {
		// Every call failed: the step is a failure, as one failed call is; the repair turn names each call's error.
		const message = records
			.map((record, index) => `${callLabel(index)} (${record.tool}): ${record.error!.message}`)
			.join('\n');
		return failedStep(entry, { type: records[0].error!.type, message }, 'tool_error');
	}
	host.pushObservations(
		batchObservationMessage(
			calls.map((call, index) => ({ tool: call.tool, text: texts[index] })),
			host.config.observation_max_len,
		),
		files,
	);
	if (ended) {
		entry.error = { type: 'limit', message: ended.detail };
		return { next: 'finish', reason: ended.reason, detail: ended.detail };
	}
	return { next: 'continue' };
}
