// An "actions" reply run as one step (issue #42): every call checked first, then read-only runs together, side effects alone, in order.
import type { Tool } from '../../tools/tool';
import type { FinishReason, TraceStep } from '../../trace/types';
import type { ToolOutcome } from '../execute-tool';
import type { BatchHost } from './batch-host';
import type { RunningCall as Running } from './batch-state';
import { callKey, hasSideEffects } from '../repeated-calls';
import { failedStep, type StepOutcome } from '../step-outcome';
import { interruptedDetail, runsAgain } from '../pause/interrupted-call';
import { refusalObservation } from '../pause/paused-run';
import type { BatchDecisions, BatchState, SettledCall } from './batch-state';
import { checkCalls } from './check-calls';
import { observeBatch } from './observe-batch';

/**
 * Runs the batch as one step, or goes on with one that paused (a person's `decisions`) or was interrupted (a
 * durable run's checkpoint). A new batch runs nothing unless every call passes the whitelist, its args schema
 * and what its tool refuses before running. Then each call in order: a repeat within the batch is answered
 * once; a call that needs approval pauses the run before it, unless a person decided on it; the loop breaker
 * and max_tool_calls decide per call; consecutive calls without side effects run together, and a call with
 * side effects waits for those before it and runs alone. A durable run checkpoints before a call with side
 * effects starts and after it ends, and after each group of calls without them.
 */
export async function runBatch(
	host: BatchHost,
	entry: TraceStep,
	batch: BatchState,
	decisions?: BatchDecisions,
): Promise<StepOutcome> {
	const { calls, settled } = batch;
	const step = entry.step;
	entry.calls = calls.map(({ tool, args }) => ({ tool, args, elapsed_ms: 0 }));
	let tools: Tool[];
	if (decisions === undefined) {
		const checked = checkCalls(host, calls);
		if ('error' in checked) return failedStep(entry, checked.error, 'tool_error');
		tools = checked.tools;
	} else tools = calls.map(({ tool }) => host.tools.get(tool)!);
	calls.forEach((call, index) => settled[index] ?? host.tellAction(step, call.tool, call.args));

	const keys = new Map<string, number>();
	let ended = firstLimit(batch);
	let stopped: StepOutcome | undefined; // the run's signal fired during a call
	let group: Running[] = [];
	const settle = (index: number, call: SettledCall) => (settled[index] = call);
	const ran = (running: Running, outcome: ToolOutcome) => {
		const { tool: name } = calls[running.index];
		const elapsed_ms = Math.round(outcome.elapsedMs);
		host.countUse(name, elapsed_ms, outcome.ok);
		host.repeats.record(
			running.key,
			step,
			outcome.ok ? outcome : { ok: false, message: outcome.error.message },
		);
		batch.started = batch.started.filter((index) => index !== running.index);
		if (!outcome.ok) {
			if (outcome.runAborted) {
				entry.error = outcome.error;
				stopped ??= host.aborted();
			}
			const text = `Error: ${outcome.error.message}`;
			settle(running.index, { kind: 'ran', text, error: outcome.error, elapsed_ms });
			return;
		}
		const taken = outcome.files
			? host.takeFiles(outcome.observation, outcome.files)
			: { observation: outcome.observation, files: [] };
		settle(running.index, {
			kind: 'ran',
			text: taken.observation,
			elapsed_ms,
			...(taken.files.length ? { files: taken.files } : {}),
		});
	};
	// Each call that ends is checkpointed as it ends (sealed then, written in order after the ones before).
	let writes = Promise.resolve();
	const run = async (running: readonly Running[]) => {
		batch.running = [...(batch.running ?? []), ...running];
		await Promise.all(
			running.map(async (call) => {
				const { index } = call;
				const outcome = await host.callTool(
					tools[index],
					calls[index].tool,
					calls[index].args,
					step,
				);
				ran(call, outcome);
				batch.running = batch.running!.filter((other) => other.index !== index);
				const write = host.sealBatch(step, batch);
				writes = writes.then(() => write?.());
				writes.catch(() => undefined); // awaited below; a failed write must not count as unhandled meanwhile
			}),
		);
		await writes;
	};
	const flush = async () => {
		const running = group;
		group = [];
		if (running.length) await run(running);
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
		const asks = !decision && !interrupted && host.config.approval_required.includes(name);
		const blocked = !decision && interrupted && !runsAgain(tool, args);
		if (sideEffects || asks || blocked) {
			await flush();
			if (stopped) return stopped;
		}
		if (asks) return host.pauseBatch(entry, batch, index);
		if (blocked) {
			const askPerson = host.config.approval_required.length > 0;
			const detail = interruptedDetail(name, step, askPerson);
			if (askPerson) return host.pauseBatch(entry, batch, index, detail);
			return { next: 'finish', reason: 'interrupted_call', detail };
		}
		// A call with side effects is recorded as started before the loop breaker and the counters take it in.
		const write = sideEffects
			? host.sealBatch(step, { ...batch, started: [...batch.started, index] })
			: undefined;
		const repeat = host.repeats.decide(tool, args, step);
		if (repeat.next === 'loop') {
			ended = { reason: 'loop', detail: repeat.detail };
			settle(index, { kind: 'limit', text: `not run: ${repeat.detail}`, ...ended });
		} else if (repeat.next === 'answer')
			settle(index, { kind: 'answer', text: repeat.observation, of: repeat.ofStep });
		else if (!host.takeToolCall()) {
			ended = {
				reason: 'max_tool_calls',
				detail: `max_tool_calls (${host.config.max_tool_calls}) reached`,
			};
			settle(index, { kind: 'limit', text: `${name} was not run: ${ended.detail}`, ...ended });
		} else if (!sideEffects) group.push({ index, key: repeat.key });
		else {
			await write?.();
			if (!batch.started.includes(index)) batch.started.push(index);
			await run([{ index, key: repeat.key }]);
			if (stopped) return stopped;
		}
	}
	await flush();
	if (stopped) return stopped;
	entry.tool_ms = (entry.tool_ms ?? 0) + Math.round(performance.now() - started);
	return observeBatch(host, entry, batch, ended, host.givenFiles);
}

/** The limit a settled call of a resumed batch already reached, if one did. */
function firstLimit(batch: BatchState): { reason: FinishReason; detail: string } | undefined {
	for (const call of Object.values(batch.settled))
		if (call.kind === 'limit') return { reason: call.reason, detail: call.detail };
	return undefined;
}
