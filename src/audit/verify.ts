// `audit verify`: a stored run's chains recomputed from what is stored, and the first part that disagrees named.
import { baseLink, configHash, nextLink, schemaHash } from '../trace/digest';
import type { TraceStep } from '../trace/types';
import type { AuditRecord } from './record';
import {
	chainVersionOf,
	recordDigest,
	recordFieldsOf,
	recordHashes,
	type RecordHashes,
} from './record-chain';
import { malformedPart } from './record-shape';
import { planMismatch } from './plan-check';

/** What `audit verify` found: the chain recomputed from what is stored, and where it first disagrees. */
export interface VerifyReport {
	run_id: string;
	ok: boolean;
	/** 2: every stored field is covered (see record-chain.ts); 1: a row from before, config, tool schemas and steps only. */
	chain_version: 1 | 2 | 3 | 4 | 5 | 6;
	steps: number;
	/** The trace chain's head recomputed from the stored config, tool schemas and steps. */
	recomputed_digest: string;
	stored_digest: string;
	/** Version 2: the record chain's head recomputed from every stored field. */
	recomputed_record_digest?: string;
	stored_record_digest?: string;
	/** With a digest given that matched: `record` (it proves every stored field) or `trace` (config, tools, steps). */
	digest_covers?: 'record' | 'trace';
	/** Issue #52, verifyStoredRun: the sub-agents' runs the steps link to, each checked with its own links. */
	linked_runs?: number;
	/**
	 * The first stored part that does not match: a malformed part (`config`, `tools`, `tool <n>`, `steps`,
	 * `step at position <i>`, `record_hashes`, `chain_version`), `config`, `tool <name>`, `chain_base`, `steps`,
	 * `step <n>`, `trace_digest`, a run field (`final_answer`, `messages`, `session_id`, `plan`, …), `step <n> reply`,
	 * `record_digest`, `step <n>` again for a plan's step that ran a call its recorded plan does not hold (see
	 * planMismatch), `digest` (the digest given), or, from verifyStoredRun, `step <n> sub_run` or
	 * `step <n> call <i> sub_run` for a sub-agent's run whose link does not hold (see subRunMismatch).
	 */
	first_mismatch?: { part: string; detail: string };
}

type Mismatch = VerifyReport['first_mismatch'];
const changed = (part: string): Mismatch => ({
	part,
	detail: `the stored ${part} does not match its recorded hash: it was changed after the run`,
});

/**
 * Recomputes a stored run's hash chains and compares them, part by part, with the hashes stored beside
 * them, naming the first changed part. Version 2 rows also check every run field and each step's reply
 * (the record chain). With `expectedDigest` — the run output's `audit.record_digest` (or its `trace_digest`,
 * which proves the config, tools and steps only) kept elsewhere — a row whose hashes were all rewritten to
 * match a change is caught too. A malformed row is a mismatch naming the part, never a throw.
 */
export function verifyRecord(record: AuditRecord, expectedDigest?: string): VerifyReport {
	const version = chainVersionOf(record);
	const malformed = malformedPart(record);
	const stored = {
		stored_digest: String(record.trace_digest),
		...(version >= 2 ? { stored_record_digest: String(record.record_digest) } : {}),
	};
	if (malformed)
		return {
			run_id: String(record.run_id),
			ok: false,
			chain_version: version,
			steps: Array.isArray(record.steps) ? record.steps.length : 0,
			recomputed_digest: '',
			...stored,
			first_mismatch: malformed,
		};

	const recomputed = version >= 2 ? recordHashes(record) : undefined;
	const storedHashes = record.record_hashes as RecordHashes | undefined;
	let mismatch = baseMismatch(record);
	let link = baseLink({
		configHash: configHash(record.config),
		toolSchemaHashes: Object.fromEntries(
			record.tools.map((tool) => [tool.name, schemaHash(tool.schema)]),
		),
	});
	if (!mismatch && link !== record.chain_base)
		mismatch = {
			part: 'chain_base',
			detail: "the chain's first link does not match the config and tool schema hashes",
		};
	if (!mismatch && recomputed && recomputed.steps !== storedHashes!.steps) {
		mismatch = {
			part: 'steps',
			detail: `the stored steps (${record.steps.map((entry) => entry.step.step).join(', ')}) are not the ones recorded: a step row was removed, added or moved`,
		};
	}
	for (const { step, link: storedLink } of record.steps) {
		link = nextLink(link, step as TraceStep);
		if (!mismatch && link !== storedLink)
			mismatch = {
				part: `step ${step.step}`,
				detail: `step ${step.step} does not match its recorded link: it was changed after the run`,
			};
	}
	if (!mismatch && link !== record.trace_digest)
		mismatch = { part: 'trace_digest', detail: "the stored trace_digest is not the chain's head" };
	let recordHead: string | undefined;
	if (recomputed) {
		mismatch ??= recordMismatch(record, recomputed, storedHashes!);
		recordHead = recordDigest(recomputed);
		if (!mismatch && recordHead !== record.record_digest)
			mismatch = {
				part: 'record_digest',
				detail: 'the stored record_digest is not the head of the stored record hashes',
			};
	}
	// A planned run: every call its plan's steps made is in the plan as recorded (and approved).
	mismatch ??= planMismatch(record);
	let covers: VerifyReport['digest_covers'];
	if (expectedDigest !== undefined) {
		covers =
			expectedDigest === recordHead ? 'record' : expectedDigest === link ? 'trace' : undefined;
		if (!covers && !mismatch) {
			mismatch = {
				part: 'digest',
				detail:
					`the digest given (${expectedDigest}) is neither the recomputed ` +
					`${recordHead ? `record_digest (${recordHead}) nor the ` : ''}trace_digest (${link}): ` +
					'the stored run is not the run that output it',
			};
		}
	}
	return {
		run_id: record.run_id,
		ok: !mismatch,
		chain_version: version,
		steps: record.steps.length,
		recomputed_digest: link,
		...stored,
		...(recordHead ? { recomputed_record_digest: recordHead } : {}),
		...(covers && !mismatch ? { digest_covers: covers } : {}),
		...(mismatch ? { first_mismatch: mismatch } : {}),
	};
}

/** The config or a tool schema that no longer matches the hash stored with it. */
function baseMismatch(record: AuditRecord): Mismatch {
	if (configHash(record.config) !== record.config_hash) return changed('config');
	const tool = record.tools.find(
		(candidate) => schemaHash(candidate.schema) !== candidate.schema_hash,
	);
	return tool
		? {
				part: `tool ${tool.name}`,
				detail: `the stored schema of tool ${tool.name} does not match its recorded hash`,
			}
		: undefined;
}

/** The first run field, then the first step reply, whose recomputed hash is not the stored one. */
function recordMismatch(
	record: AuditRecord,
	recomputed: RecordHashes,
	stored: RecordHashes,
): Mismatch {
	const field = recordFieldsOf(record).find((name) => recomputed[name] !== stored[name]);
	if (field)
		return field === 'trace_digest'
			? {
					part: 'trace_digest',
					detail: "the stored trace_digest is not the one this run's record was sealed with",
				}
			: changed(field);
	const index = recomputed.replies.findIndex((hash, position) => hash !== stored.replies[position]);
	if (index >= 0)
		return {
			part: `step ${record.steps[index].step.step} reply`,
			detail: `the stored reply of step ${record.steps[index].step.step} does not match its recorded hash: it was changed after the run`,
		};
	return undefined;
}
