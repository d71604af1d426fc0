// `agent-core audit verify|replay|fork`: a stored run checked against its hash chains, re-run from its record (offline, or against a candidate), or forked.
import { parseArgs } from 'node:util';
import { replayRecord } from '../../replay';
import { auditSinkFor } from '../../audit/postgres-sink';
import { verifyStoredRun } from '../../audit/sub-run-links';
import {
	CANDIDATE_FLAGS,
	candidateFromFlags,
	counterfactualReport,
	plainReplays,
	replayOrRefusal,
	selectedRuns,
} from './audit-replay-command';
import { forkCommand } from './audit-fork-command';
import { guardrailsReplayCommand, NOT_WITH_GUARDRAILS } from './audit-guardrails-command';
import { NOT_VERIFIED, refusedUnverified } from './audit-refusal';
import { UsageError, integerFlags, integerOption } from '../flags';
import { AUDIT_USAGE } from '../usage';

/** Exit status of a verify that found a change, or a replay that came out differently. */
const DIFFERS = 3;

/** The audit actions' options, as parseArgs options. */
export const AUDIT_FLAGS = {
	postgres: { type: 'string' },
	run: { type: 'string' },
	digest: { type: 'string' },
	since: { type: 'string' },
	workflow: { type: 'string' },
	limit: integerOption({ min: 1, meaning: 'the most runs to replay' }),
	'run-read-only': { type: 'boolean' },
	unverified: { type: 'boolean' },
	step: integerOption({ min: 1, meaning: "the number of one of the run's steps" }),
	observation: { type: 'string' },
	files: { type: 'string' },
	guardrails: { type: 'string' },
	json: { type: 'boolean' },
	...Object.fromEntries(CANDIDATE_FLAGS.map((flag) => [flag, { type: 'string' }])),
} as const;

/** The flags that take no value. */
const SWITCHES = ['run-read-only', 'unverified', 'json'] as const;

/** The flags only some actions take, and the actions they belong to. */
const BELONGS_TO: Record<string, string[]> = {
	digest: ['verify'],
	since: ['replay'],
	workflow: ['replay'],
	limit: ['replay'],
	'run-read-only': ['replay'],
	step: ['fork'],
	observation: ['fork'],
	files: ['replay', 'fork'],
	unverified: ['replay', 'fork'],
	guardrails: ['replay'],
	json: ['replay'],
	...Object.fromEntries(CANDIDATE_FLAGS.map((flag) => [flag, ['replay', 'fork']])),
};

/**
 * `agent-core audit verify|replay|fork`: a stored run's hash chain recomputed (the first changed part named),
 * its loop re-run from the stored replies and observations — offline, or, with a candidate model or config,
 * against the candidate (issue #33) — or a new run forked from one of its steps. Prints a JSON report (fork: the new run's output).
 */
export async function auditCommand(argv: string[]): Promise<number> {
	const [action, ...rest] = argv;
	if (action !== 'verify' && action !== 'replay' && action !== 'fork')
		throw new UsageError(
			`audit needs verify, replay or fork${action ? `, not "${action}"` : ''}\n${AUDIT_USAGE}`,
		);
	let values: Record<string, string | undefined>;
	let switches: Record<(typeof SWITCHES)[number], boolean>;
	try {
		const parsed: Record<string, string | boolean | undefined> = parseArgs({
			args: rest,
			options: AUDIT_FLAGS,
			strict: true,
		}).values;
		switches = {
			'run-read-only': parsed['run-read-only'] === true,
			unverified: parsed.unverified === true,
			json: parsed.json === true,
		};
		for (const name of SWITCHES) delete parsed[name];
		values = parsed as Record<string, string | undefined>;
	} catch (error) {
		throw new UsageError(`${(error as Error).message}\n${AUDIT_USAGE}`);
	}
	const numbers = integerFlags(AUDIT_FLAGS, values);
	const runReadOnly = switches['run-read-only'];
	const given = (flag: string) =>
		flag in switches ? switches[flag as (typeof SWITCHES)[number]] : values[flag] !== undefined;
	const misplaced = Object.keys(BELONGS_TO).find(
		(flag) => given(flag) && !BELONGS_TO[flag].includes(action),
	);
	if (misplaced)
		throw new UsageError(
			`--${misplaced} belongs to ${BELONGS_TO[misplaced].map((name) => `audit ${name}`).join(' and ')}`,
		);
	const candidate = CANDIDATE_FLAGS.some((flag) => values[flag] !== undefined);
	checkSelection(action, values, candidate, runReadOnly);
	if (values.digest !== undefined && !/^[0-9a-fA-F]{64}$/.test(values.digest)) {
		throw new UsageError(
			`--digest must be 64 hex digits (the output's audit.record_digest or trace_digest), not "${values.digest}"`,
		);
	}
	if (values.guardrails !== undefined) {
		checkGuardrailsFlags(given, candidate);
		return guardrailsReplayCommand(values, numbers.limit, switches.json);
	}
	if (switches.json)
		throw new UsageError(
			'--json belongs to audit replay --guardrails (the other reports are JSON already)',
		);
	// Flags and files are checked before the database is asked anything.
	if (action === 'fork' && numbers.step === undefined)
		throw new UsageError('audit fork needs --step N: the step of the run to fork from (1 or more)');
	const unverified = switches.unverified;
	const chosen =
		candidate && action === 'replay'
			? { ...candidateFromFlags(values, runReadOnly), unverified }
			: undefined;
	const sink = auditSinkFor(values.postgres!);
	try {
		const records = await selectedRuns(sink, values, numbers.limit);
		// Every selected row is verified before any of them is used: one that does not stops them all, nothing asked or run.
		if (action !== 'verify' && !unverified && refusedUnverified(action, records))
			return NOT_VERIFIED;
		if (action === 'fork') return await forkCommand(records[0], values, numbers.step!, unverified);
		let outcome: { report: unknown; same: boolean };
		if (action === 'verify') {
			// With its sub-agents' runs: each linked row read and checked (issue #52).
			const report = await verifyStoredRun(
				records[0],
				(runId) => sink.read(runId),
				values.digest?.toLowerCase(),
			);
			outcome = { report, same: report.ok };
		} else if (chosen) {
			outcome = await counterfactualReport(records, chosen, values.files);
		} else if (values.run !== undefined) {
			const report = await replayOrRefusal(records[0], (record) =>
				replayRecord(record, { unverified }),
			);
			outcome = { report, same: report.same };
		} else {
			outcome = await plainReplays(records, unverified);
		}
		process.stdout.write(`${JSON.stringify(outcome.report, null, 2)}\n`);
		return outcome.same ? 0 : DIFFERS;
	} finally {
		await sink.close();
	}
}

/** `--guardrails` tries checks on the record: no candidate is asked and no file is given again. */
function checkGuardrailsFlags(given: (flag: string) => boolean, candidate: boolean): void {
	const other = candidate ? 'a candidate flag' : NOT_WITH_GUARDRAILS.find(given);
	if (other)
		throw new UsageError(
			`--guardrails cannot take ${other.startsWith('a ') ? other : `--${other}`}: it checks the verified record, asking no model and running no tool`,
		);
}

/** Which runs: verify takes one `--run`; replay `--run` or `--since` (with `--workflow`, `--limit`), and `--run-read-only` only with a candidate. */
function checkSelection(
	action: string,
	values: Record<string, string | undefined>,
	candidate: boolean,
	runReadOnly: boolean,
): void {
	if (!values.postgres)
		throw new UsageError(`audit ${action} needs --postgres URL\n${AUDIT_USAGE}`);
	if (action !== 'replay' && !values.run)
		throw new UsageError(`audit ${action} needs --postgres URL and --run ID\n${AUDIT_USAGE}`);
	if (action !== 'replay') return;
	if ((values.run === undefined) === (values.since === undefined))
		throw new UsageError(
			`audit replay needs --postgres URL and either --run ID or --since DATE\n${AUDIT_USAGE}`,
		);
	const sinceOnly = ['workflow', 'limit'].find((flag) => values[flag] !== undefined);
	if (sinceOnly && values.since === undefined)
		throw new UsageError(`--${sinceOnly} needs --since DATE: it narrows the runs --since selects`);
	if (runReadOnly && !candidate)
		throw new UsageError(
			'--run-read-only needs a candidate (--model, --with-config or a provider flag): a plain replay runs no tool',
		);
}
