// Trying guardrails and hooks on past runs (issue #50): the audited runs selected, verified, and run through the chain.
import { HookChain, checkHooks, type AgentHook } from '../../agent/hooks';
import { PostgresAuditSink, type PostgresTarget } from '../../audit/postgres-sink';
import type { AuditRecord } from '../../audit/record';
import { AgentCoreError } from '../../core/agent-core-error';
import { InputError } from '../../core/input-error';
import { checkKnownOptions, type OptionNames } from '../../core/known-options';
import { checkGuardrails } from '../../guardrails';
import { recordMismatch, type RecordMismatch } from '../record-trust';
import { guardRecord } from './guard-record';
import type { GuardrailReplayReport, UnverifiedRun } from './report-types';

export interface ReplayGuardrailsOptions {
	/** The audit database the runs are stored in. */
	postgres: PostgresTarget;
	/** Built-in guardrails, written as the `guardrails` setting (checked as a run checks it). */
	guardrails?: unknown;
	/** Library hooks, as runAgent takes them: tried at the points the record has (all but before_model, on_failure). */
	hooks?: readonly AgentHook[];
	/** One run by id; or `since` with `workflow` and `limit`. */
	run?: string;
	/** Runs created at or after this time, oldest first. */
	since?: Date | string;
	workflow?: string;
	limit?: number;
}

const OPTIONS = {
	postgres: true,
	guardrails: true,
	hooks: true,
	run: true,
	since: true,
	workflow: true,
	limit: true,
} satisfies OptionNames<ReplayGuardrailsOptions>;

/** The audit database could not be read: the cause says why. */
export class AuditReadError extends AgentCoreError {
	override readonly name = 'AuditReadError';
	constructor(cause: unknown) {
		const said = (cause as Error)?.message || String((cause as { code?: string })?.code ?? cause);
		super(`cannot read the audit database (${said})`, {
			field: 'postgres',
			fix: 'Check the audit database address and that it is running.',
		});
	}
}

/** A row nested deeper than it can be read or hashed: no run writes one (the run hashes each step as it goes). */
const TOO_DEEP: RecordMismatch = {
	part: 'record',
	detail:
		'the stored run is nested deeper than its hashes can be recomputed, so no run wrote it so: it was changed after the run',
};

/**
 * The first part of the row that does not verify, or undefined. A row nested deeper than its hashes can be
 * recomputed was never written by a run (the run hashes each step as it goes): it does not verify.
 */
function verified(record: AuditRecord): RecordMismatch | undefined {
	try {
		return recordMismatch(record);
	} catch (error) {
		if (!(error instanceof RangeError)) throw error;
		return TOO_DEEP;
	}
}

/** The runs the options select, checked before the database is asked anything. */
function selection(options: ReplayGuardrailsOptions) {
	const { run, since, workflow, limit } = options;
	if ((run === undefined) === (since === undefined))
		throw new InputError(
			'run',
			'give either run (one run id) or since (a date), not both or neither',
		);
	if (run !== undefined) {
		if (typeof run !== 'string' || run === '') throw new InputError('run', 'run must be a run id');
		const extra = workflow !== undefined ? 'workflow' : limit !== undefined ? 'limit' : undefined;
		if (extra)
			throw new InputError(
				extra,
				`${extra} narrows the runs since selects; with run, leave it out`,
			);
		return { run };
	}
	const date = since instanceof Date ? since : new Date(String(since));
	if (Number.isNaN(date.getTime()))
		throw new InputError(
			'since',
			`since must be a date or time (ISO 8601, e.g. 2026-11-01), not "${String(since)}"`,
		);
	if (workflow !== undefined && typeof workflow !== 'string')
		throw new InputError('workflow', 'workflow must be a workflow id (text)');
	if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
		throw new InputError('limit', 'limit must be a whole number of runs, 1 or more');
	return { since: date, workflowId: workflow, limit };
}

/** The selected rows, and those too deeply nested to be read at all (a hostile row is named, never a crash). */
async function readRuns(
	sink: PostgresAuditSink,
	chosen: ReturnType<typeof selection>,
): Promise<{ records: AuditRecord[]; unreadable: UnverifiedRun[] }> {
	const records: AuditRecord[] = [];
	const unreadable: UnverifiedRun[] = [];
	const read = async (id: string) => {
		try {
			const record = await sink.read(id);
			if (record) records.push(record);
			return record;
		} catch (error) {
			if (!(error instanceof RangeError)) throw new AuditReadError(error);
			unreadable.push({ run_id: id, first_mismatch: TOO_DEEP });
			return true;
		}
	};
	if ('run' in chosen) {
		if (!(await read(chosen.run!)))
			throw new InputError(
				'run',
				`no run ${JSON.stringify(chosen.run).slice(0, 80)} in the audit database`,
				"Give the id of an audited run (the run output's audit.run_id).",
			);
		return { records, unreadable };
	}
	const ids = await sink.runIds(chosen).catch((error: unknown) => {
		throw new AuditReadError(error);
	});
	for (const id of ids) await read(id);
	return { records, unreadable };
}

/**
 * Runs built-in guardrails (as the `guardrails` setting) and library hooks over the recorded input, replies,
 * calls' args, observations and answers of audited runs — no model call, no tool call — and reports per run
 * each decision other than allow (name, point, step, tool, call; never what was found) and whether the run would
 * have ended otherwise. Every selected row is verified first: when any does not, none is checked and
 * `unverified` names them. Hooks run as in a run: in order, before the guardrails, and one that throws, hangs
 * or replies with anything but a decision blocks (fails closed). Bad options throw InputError or ConfigError
 * naming the field (`guardrails[0].kinds`) before the database is asked anything.
 */
export async function replayGuardrails(
	options: ReplayGuardrailsOptions,
): Promise<GuardrailReplayReport> {
	checkKnownOptions('replayGuardrails', options, OPTIONS);
	const guardrails = checkGuardrails(options.guardrails);
	const hooks = checkHooks(options.hooks);
	if (guardrails.length === 0 && hooks.length === 0)
		throw new InputError(
			'guardrails',
			'give guardrails or hooks to try: there is nothing to replay',
		);
	const chosen = selection(options);
	const sink = new PostgresAuditSink(options.postgres);
	let records: AuditRecord[];
	let unreadable: UnverifiedRun[];
	try {
		({ records, unreadable } = await readRuns(sink, chosen));
	} finally {
		await sink.close();
	}
	const tried = { guardrails: guardrails.length, hooks: hooks.length };
	const unverified = [
		...unreadable,
		...records.flatMap((record): UnverifiedRun[] => {
			const mismatch = verified(record);
			return mismatch ? [{ run_id: String(record.run_id), first_mismatch: mismatch }] : [];
		}),
	];
	if (unverified.length > 0)
		return {
			tried,
			runs: [],
			unverified,
			total: { runs: 0, tripped: 0, decisions: 0, ends_differently: [] },
		};
	const runs = [];
	for (const record of records)
		runs.push(await guardRecord(record, new HookChain(hooks, guardrails, record.run_id)));
	return {
		tried,
		runs,
		unverified,
		total: {
			runs: runs.length,
			tripped: runs.filter((run) => run.decisions.length > 0).length,
			decisions: runs.reduce((sum, run) => sum + run.decisions.length, 0),
			ends_differently: runs.filter((run) => run.ends_differently).map((run) => run.run_id),
		},
	};
}
