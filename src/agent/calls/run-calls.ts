// The one tool-call path (issues #42, #49): a step's calls (one action is a batch of one) checked, then run in order.
import type { FileInput } from '../../files';
import type { Tool } from '../../tools/tool';
import type { FinishReason, TraceStep } from '../../trace/types';
import { abortedReason } from '../base/run-clock';
import { callTool, countToolUse, type ToolOutcome } from './execute-tool';
import { filesHeldIn, observedFiles } from '../setup/input-files';
import { callKey, hasSideEffects } from '../base/streaks';
import { failedStep } from '../base/step-outcome';
import { interruptedDetail, runsAgain } from './interrupted-call';
import { refusalObservation } from '../pause/paused-run';
import type {
	BatchDecisions,
	BatchState,
	RunningCall as Running,
	SettledCall,
} from '../pause/calls-state';
import { checkCalls } from './check-calls';
import { observeCalls } from './observe-calls';
import { afterTool, beforeTools } from './call-hooks';
import type { ChildPause } from '../subagent';
import { SUB_AGENT, type AgentTool } from '../subagent/agent-tool';

/** What the model and the trace get of a call whose result a hook or guardrail blocked: the run ends there. */
const WITHHELD = 'what the call returned was withheld: a guardrail blocked the run';
import { sealCalls, subAgentCall, type CallsOutcome, type CallsRun } from './calls-run';

/**
 * Runs a step's calls, or goes on with calls that paused (a person's `decisions`) or were interrupted (a
 * durable run's checkpoint). New calls run nothing unless every call passes the whitelist, its args schema
 * and what its tool refuses before running. Then each call in order: a repeat within the step is answered
 * once; a call that needs approval pauses the run before it, unless a person decided on it; the loop breaker
 * and max_tool_calls decide per call; consecutive calls without side effects run together, and a call with
 * side effects waits for those before it and runs alone. A durable run checkpoints before a call with side
 * effects starts, and after each call of a batch ends; one read-only call before it starts.
 */
export async function runCalls(
	run: CallsRun,
	entry: TraceStep,
	batch: BatchState,
	decisions?: BatchDecisions,
): Promise<CallsOutcome> {
	const { calls, settled } = batch;
	const { config } = run.context;
	const { ledger, durable } = run; // a durable run's calls are checkpointed (sealCalls)
	const step = entry.step;
	const single = batch.form === 'action';
	if (!single) entry.calls = calls.map(({ tool, args }) => ({ tool, args, elapsed_ms: 0 }));
	let tools: Array<Tool | undefined>;
	// One call is checked whenever it is about to run (a person's edit too); a batch's calls when they are new.
	const denied = 'deny' in (decisions?.get(0) ?? {});
	if (single ? !settled[0] && !denied : decisions === undefined) {
		if (single) run.tell.action(step, calls[0].tool, calls[0].args);
		const checked = checkCalls(run.context, batch);
		if ('error' in checked) {
			if (single) run.tell.observation(step, calls[0].tool, false, checked.error.message);
			return failedStep(entry, checked.error, 'tool_error');
		}
		tools = checked.tools;
	} else tools = calls.map(({ tool }) => run.context.tools.get(tool));
	const guarded = run.hooks && (await beforeTools(run.hooks, run, entry, batch, decisions));
	if (guarded) return guarded;
	if (!single)
		calls.forEach((call, index) => settled[index] ?? run.tell.action(step, call.tool, call.args));

	const keys = new Map<string, number>();
	let ended = firstLimit(batch);
	let stopped: CallsOutcome | undefined; // the run's signal fired during a call, or a sub-agent paused
	let group: Running[] = [];
	const settle = (index: number, call: SettledCall) => (settled[index] = call);
	const ran = async (running: Running, outcome: ToolOutcome & { paused?: ChildPause }) => {
		const { index } = running;
		const { tool: name } = calls[index];
		if (outcome.paused) {
			// A sub-agent waits for a person (issue #52): the run pauses at this call, which goes on when resumed.
			(batch.children ??= {})[index] = outcome.paused;
			batch.started = batch.started.filter((other) => other !== index);
			stopped ??= { next: 'pause', at: index };
			return;
		}
		if (batch.children?.[index]) delete batch.children[index];
		const elapsed_ms = Math.round(outcome.elapsedMs);
		countToolUse(ledger.usedTools, name, elapsed_ms, outcome.ok);
		batch.started = batch.started.filter((other) => other !== index);
		if (!outcome.ok && outcome.runAborted) {
			entry.error = outcome.error;
			if (single) run.tell.observation(step, name, false, outcome.error.message);
			stopped ??= { next: 'finish', ...abortedReason(run.context.runSignal.reason) };
		}
		// What the call returned (an error's message too) through after_tool: the loop breaker keeps what the model saw.
		const place = { tool: name, ...(single ? {} : { call: index + 1 }) };
		const raw = outcome.ok ? outcome.observation : outcome.error.message;
		const checked =
			(!outcome.ok && outcome.runAborted) || !run.hooks
				? { text: raw }
				: await afterTool(run.hooks, run, entry, place, raw);
		if ('ended' in checked) {
			stopped ??= checked.ended;
			const error = { type: 'guardrail' as const, message: WITHHELD };
			ledger.repeats.record(running.key, step, { ok: false, message: WITHHELD });
			settle(index, { kind: 'ran', text: `Error: ${WITHHELD}`, error, elapsed_ms });
			return;
		}
		const subRun = outcome.subRun ? { sub_run: outcome.subRun } : {};
		if (!outcome.ok) {
			const error = { ...outcome.error, message: checked.text };
			ledger.repeats.record(running.key, step, { ok: false, message: checked.text });
			settle(index, { kind: 'ran', text: `Error: ${checked.text}`, error, elapsed_ms, ...subRun });
			return;
		}
		ledger.repeats.record(running.key, step, { ...outcome, observation: checked.text });
		const taken = outcome.files
			? takeFiles(run, checked.text, outcome.files)
			: { observation: checked.text, files: [] };
		settle(index, {
			kind: 'ran',
			text: taken.observation,
			elapsed_ms,
			...(taken.files.length ? { files: taken.files } : {}),
			...subRun,
		});
	};
	// A batch's call is checkpointed as it ends (sealed then, written in order after the ones before); one
	// call before it starts, as decided and counted (its end is checkpointed by its step, right after it).
	let writes = Promise.resolve();
	const runGroup = async (running: readonly Running[], sealed = false) => {
		batch.running = [...(batch.running ?? []), ...running];
		if (single && !sealed && durable) await sealCalls(durable, run, step, batch)();
		await Promise.all(
			running.map(async (call) => {
				const { index } = call;
				const { tool: name, args } = calls[index];
				const tool = tools[index]!;
				const child = batch.children?.[index];
				const resume = child && { paused: child, decision: decisions?.get(index) };
				// The tool's own marker says it is a sub-agent: a run without one never enters subagent/ (issue #49).
				const outcome = (tool as Partial<AgentTool>)[SUB_AGENT]
					? await subAgentCall(run, tool, String(args.task), resume, single ? undefined : index + 1)
					: await callTool(
							run.context,
							tool,
							name,
							args,
							durable?.idempotencyKey(step, name, args),
						);
				await ran(call, outcome);
				batch.running = batch.running!.filter((other) => other.index !== index);
				const write = single || !durable ? undefined : sealCalls(durable, run, step, batch);
				writes = writes.then(() => write?.());
				writes.catch(() => undefined); // awaited below; a failed write must not count as unhandled meanwhile
			}),
		);
		await writes;
	};
	const flush = async () => {
		const running = group;
		group = [];
		if (running.length) await runGroup(running);
	};

	const started = performance.now();
	for (const [index, { tool: name, args }] of calls.entries()) {
		const before = settled[index];
		const tool = tools[index];
		if (before) {
			if (tool && before.kind !== 'same') keys.set(callKey(tool, args), index);
			continue;
		}
		if (!tool) {
			// A resumed batch whose tool is gone (an MCP server no longer lists it): refused like an unknown tool.
			const error = { type: 'tool_not_allowed' as const, message: `${name} is no longer allowed` };
			settle(index, { kind: 'ran', text: `Error: ${error.message}`, error, elapsed_ms: 0 });
			continue;
		}
		const key = callKey(tool, args);
		// Decided and counted before an interruption, and read-only: it runs again as it was decided.
		const decided = batch.running?.find((call) => call.index === index);
		if (decided) {
			keys.set(key, index);
			batch.running = batch.running!.filter((call) => call !== decided);
			group.push(decided);
			continue;
		}
		// A sub-agent that paused for a person: it goes on alone with the decision, or the run waits at it again.
		if (batch.children?.[index]) {
			keys.set(key, index);
			await flush();
			if (stopped) return stopped;
			if (!decisions?.has(index)) return { next: 'pause', at: index };
			await runGroup([{ index, key }], true);
			if (stopped) return stopped;
			continue;
		}
		const same = keys.get(key);
		if (same !== undefined) {
			settle(index, { kind: 'same', as: same });
			continue;
		}
		keys.set(key, index);
		if (ended) {
			settle(index, { kind: 'limit', text: `not run: ${ended.detail}`, ...ended });
			continue;
		}
		const decision = decisions?.get(index);
		const interrupted = batch.started.includes(index);
		if (decision && 'deny' in decision) {
			settle(index, { kind: 'denied', text: refusalObservation(name, decision.deny) });
			continue;
		}
		const sideEffects = hasSideEffects(tool, args);
		const asks =
			!decision && !batch.approved && !interrupted && config.approval_required.includes(name);
		const blocked = !decision && interrupted && !runsAgain(tool, args);
		if (sideEffects || asks || blocked) {
			await flush();
			if (stopped) return stopped;
		}
		if (asks) return { next: 'pause', at: index };
		if (blocked) {
			const askPerson = config.approval_required.length > 0;
			const detail = interruptedDetail(name, step, askPerson);
			if (askPerson) return { next: 'pause', at: index, detail };
			return { next: 'finish', reason: 'interrupted_call', detail };
		}
		// A call with side effects is recorded as started before the loop breaker and the counters take it in.
		const write =
			sideEffects && durable
				? sealCalls(durable, run, step, { ...batch, started: [...batch.started, index] })
				: undefined;
		const repeat = ledger.repeats.decide(tool, args, step);
		if (repeat.next === 'loop') {
			ended = { reason: 'loop', detail: repeat.detail };
			settle(index, { kind: 'limit', text: `not run: ${repeat.detail}`, ...ended });
		} else if (repeat.next === 'answer')
			settle(index, { kind: 'answer', text: repeat.observation, of: repeat.ofStep });
		else if (ledger.toolCalls >= config.max_tool_calls) {
			const limit = `max_tool_calls (${config.max_tool_calls}) reached`;
			// One call's step says which call was not run; a batch's calls each say so in their observation.
			ended = {
				reason: 'max_tool_calls',
				detail: single ? `${limit}; ${name} was not run` : limit,
			};
			settle(index, { kind: 'limit', text: `${name} was not run: ${limit}`, ...ended });
		} else {
			ledger.toolCalls++;
			if (!sideEffects) group.push({ index, key: repeat.key });
			else {
				await write?.();
				if (!batch.started.includes(index)) batch.started.push(index);
				await runGroup([{ index, key: repeat.key }], true);
				if (stopped) return stopped;
			}
		}
	}
	await flush();
	if (stopped) return stopped;
	if (!single) entry.tool_ms = (entry.tool_ms ?? 0) + Math.round(performance.now() - started);
	return observeCalls(run, entry, batch, ended);
}

/** Files a tool returned, under the run's caps: those that do not pass become notes inside the observation. */
function takeFiles(run: CallsRun, observation: string, returned: readonly FileInput[]) {
	const { ledger, context } = run;
	const held = (ledger.filesHeld ??= filesHeldIn(ledger.conversation));
	return observedFiles(observation, returned, context.config, held, context.redactor);
}

/** The limit a settled call of a resumed batch already reached, if one did. */
function firstLimit(batch: BatchState): { reason: FinishReason; detail: string } | undefined {
	for (const call of Object.values(batch.settled))
		if (call.kind === 'limit') return { reason: call.reason, detail: call.detail };
	return undefined;
}
