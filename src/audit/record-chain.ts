// The record chain (chain_version 2 to 6): every stored part of a run beyond its trace hashed, bound into one digest.
import { createHash } from 'node:crypto';
import { sha256 } from '../trace/digest';
import { canonicalJson } from '../validation/canonical-json';
import { RECORD_FIELDS, type AuditRecord, type RecordField, type RecordHashes } from './record';

export { RECORD_FIELDS, type RecordField, type RecordHashes } from './record';

/**
 * The newest chain version: a sub-agent's row is written with it (its `parent_run` covered), a planned run's with 5
 * (its `plan` covered), any other row with 4: each the lowest that covers all it holds, so earlier versions of the
 * package still verify it.
 */
export const CHAIN_VERSION = 6;

/**
 * The fields each version's chain covers: `cost` came with version 3, `forked_from` (issue #33) with 4, `plan`
 * (issue #51) with 5, `parent_run` (issue #52) with 6.
 */
const ADDED_IN: Partial<Record<RecordField, 3 | 4 | 5 | 6>> = {
	cost: 3,
	forked_from: 4,
	plan: 5,
	parent_run: 6,
};

/** The fields a record's chain covers: rows sealed before a field was stored (an older version) do not cover it. */
export function recordFieldsOf(record: Pick<AuditRecord, 'chain_version'>): readonly RecordField[] {
	const version = chainVersionOf(record);
	return RECORD_FIELDS.filter((field) => (ADDED_IN[field] ?? 2) <= version);
}

type ChainVersion = NonNullable<AuditRecord['chain_version']>;

/** A record's chain version, as verify reads it: 2 to 6 have a record chain, anything else is version 1. */
export function chainVersionOf(record: Pick<AuditRecord, 'chain_version'>): ChainVersion {
	const version = record.chain_version;
	return typeof version === 'number' && [2, 3, 4, 5, 6].includes(version) ? version : 1;
}

/** The version a new row is sealed as: the lowest that covers what it holds (see CHAIN_VERSION). */
const versionFor = (record: AuditRecord): ChainVersion =>
	record.parent_run ? CHAIN_VERSION : record.plan ? 5 : 4;

/** A field's value as it is hashed: absent is null, a time is its ISO text, `steps` is the step numbers. */
function fieldValue(record: AuditRecord, field: RecordField): unknown {
	if (field === 'steps') return record.steps.map((entry) => entry.step?.step ?? null);
	const value = (record as unknown as Record<string, unknown>)[field];
	if (value instanceof Date)
		return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
	return value ?? null;
}

/**
 * SHA-256 of `prefix` and a value: a string as "s" and its UTF-16LE code units (lossless, lone surrogates
 * included, and cheap for megabytes of hostile text), anything else as "j" and its canonical JSON.
 */
function hashOf(prefix: string, value: unknown): string {
	const hash = createHash('sha256').update(prefix);
	if (typeof value === 'string') hash.update('s').update(Buffer.from(value, 'utf16le'));
	else hash.update('j').update(canonicalJson(value));
	return hash.digest('hex');
}

/** The hash of one covered field: its name, a newline, then its value (see hashOf). */
export const fieldHash = (record: AuditRecord, field: RecordField): string =>
	hashOf(`${field}\n`, fieldValue(record, field));

/** The hash of one step's reply: "reply", the step number, newlines, then the reply (null when none was kept). */
export const replyHash = (stepNumber: unknown, reply: string | undefined): string =>
	hashOf(`reply\n${String(stepNumber)}\n`, reply ?? null);

/** Every hash of the record chain, computed from the record as it stands. */
export function recordHashes(record: AuditRecord): RecordHashes {
	const hashes = Object.fromEntries(
		recordFieldsOf(record).map((field) => [field, fieldHash(record, field)]),
	) as Record<RecordField, string>;
	return {
		...hashes,
		replies: record.steps.map((entry) => replyHash(entry.step?.step, entry.reply)),
	};
}

/** The record chain's head: SHA-256 of `"agent-core-record-v2\n" + canonical JSON of the hashes`. */
export const recordDigest = (hashes: RecordHashes): string =>
	sha256(`agent-core-record-v2\n${canonicalJson(hashes)}`);

/** The record with its chain version, record hashes and record digest set: what a new row stores. */
export function sealRecord(record: AuditRecord): AuditRecord {
	const sealed = { ...record, chain_version: versionFor(record) };
	const hashes = recordHashes(sealed);
	return { ...sealed, record_hashes: hashes, record_digest: recordDigest(hashes) };
}
