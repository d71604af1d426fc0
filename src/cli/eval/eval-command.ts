// `agent-core eval`: a dataset run against a config, each case held to its gates, the set to its thresholds; exit 0, 3 or 2 for CI.
import { closeSync, openSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { ConfigError } from '../../settings/config';
import { configureRun } from '../../agent/setup/configure-run';
import { runAgent } from '../../agent/run-agent';
import { RedisBudgetLedger } from '../../budget/redis-ledger';
import { createChatModel } from '../../providers/create-model';
import { Redactor } from '../../trace/redact';
import { runCase, type CaseRecord } from './eval-case';
import { refuseTooDeep } from './eval-bounds';
import { readDataset } from './eval-dataset';
import { gatesForCase, parseGatesFile } from './eval-spec';
import { summarise, summaryTable } from './eval-summary';
import {
	PROVIDER_FLAGS,
	SETTING_FLAGS,
	UsageError,
	fallbackFromFlags,
	integerFlags,
	integerOption,
	hasSharedBudget,
	providerFromFlags,
	readJsonFile,
	runOptionsFromFlags,
} from '../flags';
import { hasMcpServers, mcpPinOptions } from '../mcp-options';
import { EVAL_USAGE } from '../usage';
import { readFileFlags } from '../file-flags';

/** Cases run at once by default, and at most: enough to finish a set quickly, few enough not to draw 429s. */
const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 32;

/** Exit status when a gate or threshold does not hold, as `audit verify` exits when a run does not check out. */
const GATE_FAILED = 3;

/** eval's options, as parseArgs options. */
export const EVAL_FLAGS = {
	dataset: { type: 'string' },
	config: { type: 'string' },
	gates: { type: 'string' },
	results: { type: 'string' },
	concurrency: integerOption({
		min: 1,
		max: MAX_CONCURRENCY,
		meaning: 'how many cases run at once',
	}),
	'redis-url': { type: 'string' },
	...PROVIDER_FLAGS,
	...SETTING_FLAGS,
} as const;

/** Opens the results file before any model call, so a path that cannot be written fails the command, not the set's end. */
function openResults(path: string | undefined): { write(line: string): void; close(): void } {
	if (path === undefined) return { write: () => undefined, close: () => undefined };
	let descriptor: number;
	try {
		descriptor = openSync(path, 'w');
	} catch (error) {
		throw new UsageError(
			`--results: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
		);
	}
	return { write: (line) => writeSync(descriptor, line), close: () => closeSync(descriptor) };
}

/**
 * Cases finish in any order; their lines are written in the dataset's order, each as soon as every case before
 * it has finished, so a set cut short still leaves the lines of its first cases.
 */
function inOrder(
	count: number,
	write: (record: CaseRecord) => void,
): (index: number, record: CaseRecord) => void {
	const done: Array<CaseRecord | undefined> = new Array(count);
	let next = 0;
	return (index, record) => {
		done[index] = record;
		while (next < count && done[next] !== undefined) write(done[next++]!);
	};
}

/** The gates file, refused when it nests deeper than a case may (its every_case is part of every case). */
function readGates(path: string) {
	const file = readJsonFile(path, '--gates');
	refuseTooDeep(file, `--gates ${path}:`);
	return parseGatesFile(file, path);
}

export async function evalCommand(argv: string[]): Promise<number> {
	let values: Record<string, string | undefined>;
	try {
		values = parseArgs({
			args: argv,
			options: EVAL_FLAGS,
			strict: true,
			allowPositionals: false,
		}).values as Record<string, string | undefined>;
	} catch (error) {
		throw new UsageError(`${(error as Error).message}\n${EVAL_USAGE}`);
	}
	const concurrency = integerFlags(EVAL_FLAGS, values).concurrency ?? DEFAULT_CONCURRENCY;
	if (!values.dataset || !values.config)
		throw new UsageError(`eval needs --dataset FILE.jsonl and --config FILE\n${EVAL_USAGE}`);
	const primary = providerFromFlags(values, '');
	const fallback = fallbackFromFlags(values);
	// Everything is checked before the first model call: the config, the gates, every line of the dataset.
	const config = readJsonFile(values.config, '--config');
	const stateSecret = process.env.AGENT_CORE_STATE_SECRET;
	// With MCP servers, allowed_tools names tools only a server can confirm: the first run checks that config.
	if (!hasMcpServers(config)) configureRun({ config: config as never, stateSecret });
	const gates =
		values.gates === undefined ? { every_case: {}, thresholds: {} } : readGates(values.gates);
	const cases = readDataset(values.dataset);
	const results = openResults(values.results);

	const redisUrl = values['redis-url'] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
	const budgetLedger = hasSharedBudget(config)
		? new RedisBudgetLedger({ connection: { url: redisUrl } })
		: undefined;
	const mcp = mcpPinOptions(values['redis-url'], config);
	// Run outputs are redacted by the engine; an error a run threw is not, so every line goes through the redactor again.
	const redactor = new Redactor([primary.apiKey, fallback?.apiKey]);
	const controller = new AbortController();
	const cancel = () => controller.abort();
	process.once('SIGINT', cancel);
	const limit = pLimit(concurrency);
	const write = inOrder(cases.length, (record) => results.write(`${JSON.stringify(record)}\n`));
	// A config the engine refuses is the command's mistake, not a case's: the set stops and exits 2 with it.
	let refusal: ConfigError | undefined;
	const refuseConfig = (error: unknown): never => {
		if (error instanceof ConfigError && refusal === undefined) {
			refusal = error;
			controller.abort();
		}
		throw error;
	};
	let records: CaseRecord[];
	try {
		records = await Promise.all(
			cases.map((evalCase, index) =>
				limit(async () => {
					const run = () =>
						runAgent({
							model: createChatModel(primary),
							...(fallback ? { fallbackModel: createChatModel(fallback) } : {}),
							config: config as never,
							...evalCase.input,
							...(evalCase.files ? { files: readFileFlags(evalCase.files, config, 'files:') } : {}),
							...runOptionsFromFlags(values),
							budgetLedger,
							...mcp,
							stateSecret,
							signal: controller.signal,
						}).catch(refuseConfig);
					const record = redactor.value(
						await runCase(evalCase, gatesForCase(gates.every_case, evalCase.expected), run),
					);
					write(index, record);
					return record;
				}),
			),
		);
	} finally {
		process.removeListener('SIGINT', cancel);
		results.close();
		await Promise.all([budgetLedger?.close(), mcp.mcpPins?.close()]);
	}
	if (refusal) throw refusal;
	const summary = summarise(records, gates.thresholds);
	process.stdout.write(`${summaryTable(summary, records)}\n`);
	return summary.holds ? 0 : GATE_FAILED;
}
