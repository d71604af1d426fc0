// `agent-core audit replay` with a candidate (issue #33): recorded runs asked again of another model or config, judged against the record.
import { ConfigError } from '../../settings/config';
import {
	counterfactualReplay,
	counterfactualTotals,
	type Candidate,
	type CounterfactualRunReport,
} from '../../replay';
import { MissingFilesError, recordedSizes, UnverifiedRecordError } from '../../replay';
import { readFolderFiles } from '../file-flags';
import { replayRecord } from '../../replay';
import type { PostgresAuditSink } from '../../audit/postgres-sink';
import type { AuditRecord } from '../../audit/record';
import { malformedPart } from '../../audit/record-shape';
import { createChatModel } from '../../providers/create-model';
import { SchemaError } from '../../validation/schema-error';
import { UsageError, fallbackFromFlags, providerFromFlags, readJsonFile } from '../flags';

/** A run that could not be replayed at all: the part of it that stops it (as verify names parts). */
export interface Unreplayable {
	run_id: string;
	same: false;
	first_mismatch: { part: string; detail: string };
}

/** The flags that make a replay counterfactual: with none of them, replay is the offline re-run of issue #19. */
export const CANDIDATE_FLAGS = [
	'model',
	'with-config',
	'provider',
	'base-url',
	'api-key',
	'fallback-provider',
	'fallback-model',
	'fallback-base-url',
	'fallback-api-key',
] as const;

/**
 * The replay, or why the stored run cannot be replayed: a malformed row, or a config or tool schema that
 * today's checks refuse (a schema over the limits, a pattern RE2 cannot run), is named as the part.
 */
export async function replayOrRefusal<T>(
	record: AuditRecord,
	replay: (record: AuditRecord) => Promise<T>,
): Promise<T | Unreplayable> {
	const malformed = malformedPart(record);
	if (malformed) return { run_id: record.run_id, same: false, first_mismatch: malformed };
	try {
		return await replay(record);
	} catch (error) {
		// A row --unverified let through that is malformed (trustRecord refuses it still): named like any other.
		if (error instanceof UnverifiedRecordError)
			return { run_id: record.run_id, same: false, first_mismatch: error.mismatch };
		if (error instanceof MissingFilesError)
			return {
				run_id: record.run_id,
				same: false,
				first_mismatch: { part: 'files', detail: `${error.message}. ${error.fix}` },
			};
		if (!(error instanceof ConfigError || error instanceof SchemaError)) throw error;
		const part = error instanceof ConfigError ? `config ${error.key}` : error.field;
		return {
			run_id: record.run_id,
			same: false,
			first_mismatch: { part, detail: `the stored run cannot be replayed: ${error.message}` },
		};
	}
}

/** The runs `--run` or `--since [--workflow] [--limit]` name, in order; `limit` is `--limit`, read by integerFlags. */
export async function selectedRuns(
	sink: PostgresAuditSink,
	values: Record<string, string | undefined>,
	limit: number | undefined,
): Promise<AuditRecord[]> {
	const unreadable = (error: Error): never => {
		throw new UsageError(
			`--postgres: cannot read the audit database (${error.message || String((error as { code?: string }).code)})`,
		);
	};
	if (values.run !== undefined) {
		const record = await sink.read(values.run).catch(unreadable);
		if (!record) throw new UsageError(`--run: no run ${values.run} in the audit database`);
		return [record];
	}
	const since = new Date(values.since!);
	if (Number.isNaN(since.getTime()))
		throw new UsageError(
			`--since must be a date or time (ISO 8601, e.g. 2026-11-01 or 2026-11-01T09:00:00Z), not "${values.since}"`,
		);
	const ids = await sink.runIds({ since, workflowId: values.workflow, limit }).catch(unreadable);
	const records: AuditRecord[] = [];
	for (const id of ids) {
		const record = await sink.read(id).catch(unreadable);
		if (record) records.push(record);
	}
	return records;
}

/** The candidate of the command line: the model `run`'s provider flags build, `--model`, `--with-config`, `--run-read-only`. */
export function candidateFromFlags(
	values: Record<string, string | undefined>,
	runReadOnly: boolean,
): Candidate {
	const primary = providerFromFlags(values, '');
	const fallback = fallbackFromFlags(values);
	return {
		model: createChatModel(primary),
		...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
		...(values['with-config'] !== undefined
			? { config: readJsonFile(values['with-config'], '--with-config') as Record<string, unknown> }
			: {}),
		...(values.model !== undefined ? { modelName: values.model } : {}),
		runReadOnly,
		secrets: [primary.apiKey, ...(fallback ? [fallback.apiKey] : [])],
	};
}

const isReport = (
	entry: CounterfactualRunReport | Unreplayable,
): entry is CounterfactualRunReport => 'same_actions' in entry;

/** Every selected run against the candidate, one after another; the report and whether every run came out the same. */
export async function counterfactualReport(
	records: AuditRecord[],
	candidate: Candidate,
	/** `--files DIR`: where the runs' files are found again (see readFolderFiles). */
	filesDir?: string,
): Promise<{ report: unknown; same: boolean }> {
	if (
		candidate.config !== undefined &&
		(typeof candidate.config !== 'object' ||
			candidate.config === null ||
			Array.isArray(candidate.config))
	) {
		throw new UsageError(
			'--with-config: the file must hold one JSON object, a config as for agent-core run --config',
		);
	}
	const runs: (CounterfactualRunReport | Unreplayable)[] = [];
	for (const record of records)
		runs.push(
			await replayOrRefusal(record, (stored) =>
				counterfactualReplay(stored, {
					...candidate,
					...(filesDir ? { files: readFolderFiles(filesDir, recordedSizes(stored)) } : {}),
				}),
			),
		);
	const reports = runs.filter(isReport);
	const total = {
		...counterfactualTotals(reports),
		unreplayable: runs.filter((run) => !isReport(run)).map((run) => run.run_id),
	};
	const same = runs.every((run) => isReport(run) && run.same_answer && run.same_actions);
	return {
		report: {
			candidate: {
				model: candidate.modelName ?? candidate.config?.model ?? 'as recorded',
				provider: candidate.model.provider,
			},
			runs,
			total,
		},
		same,
	};
}

/** Without a candidate, `--since` replays each selected run offline as `--run` does one (`unverified`: see replayRecord). */
export async function plainReplays(
	records: AuditRecord[],
	unverified: boolean,
): Promise<{ report: unknown; same: boolean }> {
	const runs = [];
	for (const record of records)
		runs.push(await replayOrRefusal(record, (stored) => replayRecord(stored, { unverified })));
	const differing = runs.filter((run) => !run.same).map((run) => run.run_id);
	return {
		report: { runs, total: { runs: runs.length, same: runs.length - differing.length, differing } },
		same: differing.length === 0,
	};
}
