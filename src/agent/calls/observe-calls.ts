// A step's settled calls as the model, the trace and the listener see them (issue #42): one message, a record per call; one action as one call.
import type { RunFile } from '../../files';
import type { FinishReason, TraceStep } from '../../trace/types';
import { callLabel } from '../protocol/actions-turn';
import { batchObservationMessage, observationMessage } from '../protocol/prompt';
import { fileRefs, reattachFiles } from '../setup/input-files';
import { failedStep, limitReached, type StepOutcome } from '../base/step-outcome';
import type { BatchState } from '../pause/calls-state';
import type { CallsRun } from './calls-run';

type Ended = { reason: FinishReason; detail: string } | undefined;

/** The step's observations, as one call's (an action reply) or as a batch's. */
export function observeCalls(
	run: CallsRun,
	entry: TraceStep,
	batch: BatchState,
	ended: Ended,
): StepOutcome {
	return batch.form === 'action'
		? observeOne(run, entry, batch)
		: observeBatch(run, entry, batch, ended);
}

/**
 * One call's step: a limit reached at it ends the run with no observation; a failure is a failed step (the
 * repair turn carries its error); else its observation, in the trace and in the message of one tool.
 */
function observeOne(run: CallsRun, entry: TraceStep, batch: BatchState): StepOutcome {
	const [{ tool }] = batch.calls;
	const settled = batch.settled[0];
	if (settled.kind === 'limit') return limitReached(entry, settled.reason, settled.detail);
	if (settled.kind === 'answer') entry.repeat_of = settled.of as number;
	let files: RunFile[] = [];
	if (settled.kind === 'ran') {
		entry.tool_ms = settled.elapsed_ms;
		if (settled.sub_run) entry.sub_run = settled.sub_run;
		if (settled.error) {
			run.tell.observation(entry.step, tool, false, settled.error.message);
			return failedStep(entry, settled.error, 'tool_error');
		}
		files = settled.files ?? [];
	}
	const text = settled.kind === 'same' ? '' : settled.text;
	const message = { role: 'user' as const, content: observationMessage(tool, text), files };
	if (run.givenFiles.length) reattachFiles([message], run.givenFiles);
	if (files.length) entry.observation_files = fileRefs(message.files);
	run.tell.observation(entry.step, tool, true, text);
	entry.observation = text;
	pushObservations(run, batch, message.content, message.files as RunFile[]);
	return { next: 'continue' };
}

/**
 * Every call's observation in one message, in call order, with the files the calls returned; the trace step's
 * calls; the step's outcome. The step fails (repair turn) only when every call failed; a limit reached in the
 * batch ends the run after the model's message is written.
 */
function observeBatch(
	run: CallsRun,
	entry: TraceStep,
	batch: BatchState,
	ended: Ended,
): StepOutcome {
	const records = entry.calls!;
	const texts: string[] = [];
	const files: RunFile[] = [];
	let failed = 0;
	for (const [index, { tool }] of batch.calls.entries()) {
		const record = records[index];
		const settled = batch.settled[index];
		let text: string;
		if (settled.kind === 'same') {
			text = texts[settled.as];
			record.repeat_of = callLabel(settled.as);
		} else {
			text = settled.text;
			if (settled.kind === 'answer') record.repeat_of = settled.of;
			if (settled.kind === 'ran') {
				record.elapsed_ms = settled.elapsed_ms;
				if (settled.sub_run) record.sub_run = settled.sub_run;
				if (settled.error) {
					failed++;
					record.error = settled.error;
				}
				if (settled.files) files.push(...settled.files);
			}
		}
		if (!record.error) record.observation = text;
		run.tell.observation(entry.step, tool, !record.error, text);
		texts.push(text);
	}
	if (failed === batch.calls.length && !ended) {
		// Every call failed: the step is a failure, as one failed call is; the repair turn names each call's error.
		const message = records
			.map((record, index) => `${callLabel(index)} (${record.tool}): ${record.error!.message}`)
			.join('\n');
		return failedStep(entry, { type: records[0].error!.type, message }, 'tool_error');
	}
	// Files of calls settled before a pause come back from the state as references: the caller's copies give their bytes.
	const message = { role: 'user' as const, content: '', files };
	if (run.givenFiles.length) reattachFiles([message], run.givenFiles);
	if (message.files.length) entry.observation_files = fileRefs(message.files);
	const results = batch.calls.map((call, index) => ({ tool: call.tool, text: texts[index] }));
	const { observation_max_len } = run.context.config;
	pushObservations(
		run,
		batch,
		batchObservationMessage(results, observation_max_len),
		message.files as RunFile[],
	);
	if (ended) {
		entry.error = { type: 'limit', message: ended.detail };
		return { next: 'finish', reason: ended.reason, detail: ended.detail };
	}
	return { next: 'continue' };
}

/**
 * The step's one observation message, with the calls' files, for the model's next turn; a plan's steps are
 * told to the model together once the plan ran (see plan/plan-group.ts).
 */
function pushObservations(
	run: CallsRun,
	batch: BatchState,
	content: string,
	files: RunFile[],
): void {
	if (batch.plan) return;
	run.ledger.conversation.push({ role: 'user', content, ...(files.length ? { files } : {}) });
}
