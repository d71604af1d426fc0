// A settled batch as the model, the trace and the listener see it (issue #42): one message, a record per call.
import type { RunFile } from '../../files';
import type { FinishReason, TraceStep } from '../../trace/types';
import { callLabel } from '../protocol/actions-turn';
import { batchObservationMessage } from '../protocol/prompt';
import { fileRefs, reattachFiles } from '../input-files';
import { failedStep, type StepOutcome } from '../step-outcome';
import type { BatchState } from './batch-state';
import type { BatchHost } from './batch-host';

/**
 * Every call's observation in one message, in call order, with the files the calls returned; the trace step's
 * calls; the step's outcome. The step fails (repair turn) only when every call failed; a limit reached in the
 * batch ends the run after the model's message is written.
 */
export function observeBatch(
	host: Pick<BatchHost, 'config' | 'tellObservation' | 'pushObservations'>,
	entry: TraceStep,
	batch: BatchState,
	ended: { reason: FinishReason; detail: string } | undefined,
	heldFiles: readonly RunFile[] = [],
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
				if (settled.error) {
					failed++;
					record.error = settled.error;
				}
				if (settled.files) files.push(...settled.files);
			}
		}
		if (!record.error) record.observation = text;
		host.tellObservation(entry.step, tool, !record.error, text);
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
	reattachFiles([message], heldFiles);
	if (message.files.length) entry.observation_files = fileRefs(message.files);
	host.pushObservations(
		batchObservationMessage(
			batch.calls.map((call, index) => ({ tool: call.tool, text: texts[index] })),
			host.config.observation_max_len,
		),
		message.files as RunFile[],
	);
	if (ended) {
		entry.error = { type: 'limit', message: ended.detail };
		return { next: 'finish', reason: ended.reason, detail: ended.detail };
	}
	return { next: 'continue' };
}
