// A stored run's shape checked before its hashes: a malformed row is a named mismatch, never a crash of verify.
import type { AuditRecord } from './record';
import { chainVersionOf, recordFieldsOf } from './record-chain';

type Mismatch = { part: string; detail: string } | undefined;

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const kind = (value: unknown): string =>
	value === undefined
		? 'absent'
		: value === null
			? 'null'
			: Array.isArray(value)
				? 'an array'
				: typeof value === 'object'
					? 'an object'
					: `a ${typeof value}`;
const malformed = (part: string, what: string): Mismatch => ({
	part,
	detail: `the stored ${part} is malformed: ${what}`,
});

/** The first part of a stored run that does not have the shape every written row has, or undefined. */
export function malformedPart(record: AuditRecord): Mismatch {
	const row = record as unknown as Record<string, unknown>;
	if (
		row.chain_version !== undefined &&
		![1, 2, 3, 4, 5, 6].includes(row.chain_version as number)
	) {
		return malformed(
			'chain_version',
			`${JSON.stringify(row.chain_version)} is not 1, 2, 3, 4, 5 or 6`,
		);
	}
	if (!isObject(row.config))
		return malformed('config', `it is ${kind(row.config)}, not a JSON object`);
	if (typeof row.config_hash !== 'string')
		return malformed('config_hash', `it is ${kind(row.config_hash)}, not a hash`);
	if (!Array.isArray(row.tools))
		return malformed('tools', `it is ${kind(row.tools)}, not a list of tools`);
	for (const [index, tool] of row.tools.entries()) {
		if (
			!isObject(tool) ||
			typeof tool.name !== 'string' ||
			!isObject(tool.schema) ||
			typeof tool.schema_hash !== 'string'
		) {
			return malformed(
				`tool ${index + 1}`,
				'each tool needs a name, a schema (a JSON object) and a schema_hash',
			);
		}
	}
	if (typeof row.chain_base !== 'string' || typeof row.trace_digest !== 'string')
		return malformed(
			typeof row.chain_base !== 'string' ? 'chain_base' : 'trace_digest',
			'it is not a hash',
		);
	if (!Array.isArray(row.steps))
		return malformed('steps', `it is ${kind(row.steps)}, not a list of steps`);
	for (const [position, entry] of row.steps.entries()) {
		const step = (entry as { step?: unknown })?.step;
		const missing = [
			...(!isObject(step) ? ['step'] : typeof step.step !== 'number' ? ['step.step'] : []),
			...(typeof (entry as { link?: unknown })?.link !== 'string' ? ['link'] : []),
			...((entry as { reply?: unknown })?.reply !== undefined &&
			typeof (entry as { reply?: unknown }).reply !== 'string'
				? ['reply']
				: []),
		];
		if (missing.length > 0)
			return malformed(
				`step at position ${position}`,
				`it lacks a well-formed ${missing.join(', ')}`,
			);
	}
	const version = chainVersionOf(record);
	// A version written down after the run would drop what the record chain covers: the row's own hashes say which it was sealed as.
	const hashes = row.record_hashes;
	const sealedWith =
		hashes === undefined || hashes === null
			? 1
			: !isObject(hashes)
				? 2
				: 'parent_run' in hashes
					? 6
					: 'plan' in hashes
						? 5
						: 'forked_from' in hashes
							? 4
							: 'cost' in hashes
								? 3
								: 2;
	if (version < sealedWith)
		return malformed(
			'chain_version',
			`the row claims version ${version} but carries the record hashes of version ${sealedWith}: it was changed after the run`,
		);
	// Whole record hashes of a lower version under a higher one: the version was raised after the run.
	if (version > sealedWith && sealedWith >= 2 && hashesComplete(hashes, sealedWith))
		return malformed(
			'chain_version',
			`the row claims version ${version} but carries the whole record hashes of version ${sealedWith}: it was changed after the run`,
		);
	// Forks came with version 4: an older row that names an origin had it added after the run, where no hash covers it.
	if (version < 4 && row.forked_from !== undefined && row.forked_from !== null) {
		return malformed(
			'forked_from',
			`a row of chain version ${version} cannot name the run it was forked from (forks are version 4): it was added after the run`,
		);
	}
	// Plans came with version 5: an older row that holds one had it added after the run, where no hash covers it.
	if (row.plan !== undefined && row.plan !== null) {
		if (version < 5)
			return malformed(
				'plan',
				`a row of chain version ${version} cannot hold a plan (planned runs are version 5): it was added after the run`,
			);
		if (!isObject(row.plan) || !Array.isArray(row.plan.steps))
			return malformed('plan', `it is ${kind(row.plan)}, not a plan with a list of steps`);
	}
	// Sub-agents' rows came with version 6: an older row that names a parent had it added after the run.
	if (row.parent_run !== undefined && row.parent_run !== null) {
		if (version < 6)
			return malformed(
				'parent_run',
				`a row of chain version ${version} cannot name the run it ran under (sub-agents' rows are version 6): it was added after the run`,
			);
		const parent = row.parent_run as Record<string, unknown>;
		if (!isObject(parent) || typeof parent.run_id !== 'string' || typeof parent.step !== 'number')
			return malformed('parent_run', 'it needs the run_id and step of the call it ran under');
	}
	if (version === 1) return undefined;
	if (!isObject(hashes))
		return malformed('record_hashes', `it is ${kind(hashes)}, not the record chain's hashes`);
	const field = recordFieldsOf(record).find((name) => typeof hashes[name] !== 'string');
	if (field) return malformed('record_hashes', `it has no hash for ${field}`);
	if (!Array.isArray(hashes.replies) || hashes.replies.some((hash) => typeof hash !== 'string'))
		return malformed('record_hashes', 'its replies are not a list of hashes');
	if (typeof row.record_digest !== 'string') return malformed('record_digest', 'it is not a hash');
	return undefined;
}

/** Whether the record hashes hold a hash for every field of that version. */
const hashesComplete = (hashes: unknown, version: 1 | 2 | 3 | 4 | 5 | 6): boolean =>
	isObject(hashes) &&
	recordFieldsOf({ chain_version: version }).every((name) => typeof hashes[name] === 'string');
