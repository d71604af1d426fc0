// before_tool and after_tool (issue #50): each call of the one call path through the run's hook chain.
import type { GuardrailDecision, TraceStep } from '../../trace/types';
import { blockedBy, ended, noteDecisions, type HookChain } from '../hooks';
import type { StepOutcome } from '../base/step-outcome';
import type { BatchDecisions, BatchState, SettledCall } from '../pause/calls-state';
import { checkToolCall, refusalBeforeRun } from './execute-tool';
import type { CallsRun } from './calls-run';

/**
 * before_tool for the calls of a new batch (each once: the batch is marked, and a paused or checkpointed batch
 * is not checked again) and for a person's edit. A deny settles the call as refused; a modify changes its args,
 * which are checked again against the whitelist, the schema and what the tool refuses before running — a hook
 * cannot smuggle invalid args or a forbidden host past them; approval and limits then see the new args.
 */
export async function beforeTools(
	hooks: HookChain,
	run: CallsRun,
	entry: TraceStep,
	batch: BatchState,
	decisions?: BatchDecisions,
): Promise<StepOutcome | undefined> {
	if (!hooks.has('before_tool')) return undefined;
	const fresh = !batch.guarded;
	batch.guarded = true;
	const single = batch.form === 'action';
	for (const [index, { tool: name, args }] of batch.calls.entries()) {
		const decision = decisions?.get(index);
		const edited = decision !== undefined && 'edit' in decision;
		if (batch.settled[index] || !(fresh || edited)) continue;
		const taken: GuardrailDecision[] = [];
		const place = { step: entry.step, tool: name, ...(single ? {} : { call: index + 1 }) };
		const outcome = await hooks.run('before_tool', place, args, taken);
		noteDecisions(entry, taken);
		if (outcome.next === 'block' || outcome.next === 'stopped')
			return ended(entry, outcome, run.context.runSignal);
		if (outcome.next === 'deny') {
			const text = deniedObservation(name, outcome.reason);
			batch.settled[index] = { kind: 'denied', text } satisfies SettledCall;
			continue;
		}
		if (outcome.value === args) continue;
		const changed = outcome.value as Record<string, unknown>;
		const by = taken.filter((one) => one.decision !== 'block').at(-1)?.name ?? 'a hook';
		// A person approved these exact args: a change to them would run a call nobody approved.
		if (edited) return blockedBy(entry, `${by} changed the args of ${name} a person edited`);
		const problem = changedArgsProblem(run, name, changed);
		if (problem) return blockedBy(entry, `${by} changed the args of ${name}: ${problem}`);
		batch.calls[index] = { tool: name, args: changed };
		if (single) entry.action = { tool: name, args: changed };
		else if (entry.calls?.[index]) entry.calls[index].args = changed;
	}
	return undefined;
}

/** Changed args checked as the model's are: whitelist and schema, then what the tool refuses before running. */
function changedArgsProblem(
	run: CallsRun,
	name: string,
	args: Record<string, unknown>,
): string | undefined {
	const checked = checkToolCall(run.context.tools, name, args);
	if ('error' in checked) return checked.error.message;
	return refusalBeforeRun(run.context, checked.tool, name, args);
}

/** What the model reads for a call a hook or a guardrail denied, as for a person's deny. */
export function deniedObservation(tool: string, reason: string): string {
	return (
		`This ${tool} call was denied before it ran, and it was not run: ${reason}. ` +
		'Do not make the same call again; answer without it, or ask for what is missing.'
	);
}

/**
 * after_tool on what a call returned (an error's text too): the text the model sees, changed or not, or the
 * step's end when a hook or guardrail blocked (the text is then withheld).
 */
export async function afterTool(
	hooks: HookChain,
	run: CallsRun,
	entry: TraceStep,
	place: { tool: string; call?: number },
	text: string,
): Promise<{ text: string } | { ended: StepOutcome }> {
	if (!hooks.has('after_tool')) return { text };
	const taken: GuardrailDecision[] = [];
	const outcome = await hooks.run('after_tool', { step: entry.step, ...place }, text, taken);
	noteDecisions(entry, taken);
	if (outcome.next === 'block' || outcome.next === 'stopped')
		return { ended: ended(entry, outcome, run.context.runSignal) };
	return { text: outcome.value as string };
}
