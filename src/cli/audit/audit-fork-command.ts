// `agent-core audit fork` (issue #33): a new run from step N of an audited run, its row naming the original run and step.
import { readFileSync } from 'node:fs';
import { ForkError, forkAuditedRun } from '../../replay';
import { MissingFilesError, recordedSizes, UnverifiedRecordError } from '../../replay';
import { readFolderFiles } from '../file-flags';
import { NOT_VERIFIED, printRefusal } from './audit-refusal';
import type { AuditRecord } from '../../audit/record';
import { createChatModel } from '../../providers/create-model';
import { UsageError, fallbackFromFlags, providerFromFlags, readJsonFile } from '../flags';

/** The CLI waits this long for the fork's audit row, as `run` does for its own. */
const CLI_AUDIT_WAIT_MS = 10_000;

/**
 * Forks the stored run from `--step`, with `--observation FILE`'s text as that step's observation when
 * given, the model of the provider flags (`--model`, else the config's) going on live, and `--with-config`
 * as the config (else the recorded one); `step` is `--step`, read by integerFlags. The new run is audited in the same database; its output is printed.
 * With `unverified` (`--unverified`), a run that does not verify is forked, its new row saying so.
 */
export async function forkCommand(
	record: AuditRecord,
	values: Record<string, string | undefined>,
	step: number,
	unverified: boolean,
): Promise<number> {
	let observation: string | undefined;
	if (values.observation !== undefined) {
		try {
			observation = readFileSync(values.observation, 'utf8');
		} catch (error) {
			throw new UsageError(
				`--observation: cannot read ${values.observation} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
			);
		}
	}
	const primary = providerFromFlags(values, '');
	const fallback = fallbackFromFlags(values);
	const given =
		values['with-config'] === undefined
			? undefined
			: readJsonFile(values['with-config'], '--with-config');
	if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
		throw new UsageError(
			'--with-config: the file must hold one JSON object, a config as for agent-core run --config',
		);
	const base = (given as Record<string, unknown> | undefined) ?? record.config;
	const config =
		values.model !== undefined
			? { ...base, model: values.model }
			: (given as Record<string, unknown> | undefined);
	let output;
	try {
		output = await forkAuditedRun({
			record,
			step,
			unverified,
			...(observation !== undefined ? { observation } : {}),
			...(config ? { config } : {}),
			model: createChatModel(primary),
			...(values.files !== undefined
				? { files: readFolderFiles(values.files, recordedSizes(record)) }
				: {}),
			...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
			audit: { postgres: values.postgres!, waitMs: CLI_AUDIT_WAIT_MS },
		});
	} catch (error) {
		if (error instanceof MissingFilesError)
			throw new UsageError(`--files: ${error.message}. ${error.fix}`);
		if (error instanceof ForkError)
			throw new UsageError(
				`--${error.field === 'config' ? 'with-config' : error.field}: ${error.message}. ${error.fix}`,
			);
		// A malformed row, which --unverified does not let through: named as verify names it, nothing forked.
		if (error instanceof UnverifiedRecordError) {
			printRefusal(
				'fork',
				[{ run_id: error.runId, verified: false, first_mismatch: error.mismatch }],
				1,
				error.fixNaming('--unverified'),
			);
			return NOT_VERIFIED;
		}
		throw error;
	}
	process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
	if (output.audit && !output.audit.stored)
		process.stderr.write(
			`agent-core: audit: ${output.audit.notice}; this process ends, so the row of run ${output.audit.run_id} is not stored\n`,
		);
	return 0;
}
