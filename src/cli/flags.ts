// Reading the CLI's flags: JSON files, provider and fallback flags, and the flags of settings from the settings table.
import { AgentCoreError } from '../core/agent-core-error';
import { readFileBounded } from '../files';
import { shownFileName } from '../trace/shown-file-name';
import type { AgentEvent } from '../agent/base/events';
import type { ProviderName, ProviderOptions } from '../providers/create-model';
import { RUN_OPTION_SETTINGS } from '../settings/settings';
import { RedisCheckpoints, type CheckpointStore } from '../run-state/checkpoint-store';
import { environmentKeyRefusal } from './fallback-key';

/**
 * A command-line mistake, exit status 2. Its message says what to give instead, so it prints as one line;
 * `field` is the first flag its first line names (`--stream-answer`), or `command`.
 */
export class UsageError extends AgentCoreError {
	override readonly name = 'UsageError';
	constructor(message: string) {
		const flag = /--(?!help\b)[a-z][a-z-]*/.exec(message.split('\n')[0])?.[0];
		super(message, {
			field: flag ?? 'command',
			fix: 'Run agent-core --help for the commands and their flags.',
			fixInMessage: true,
		});
	}
}

/** An integer flag's range, and what its number is (said in the flag's error). */
export interface IntegerRange {
	min: number;
	/** Unset: as large as a whole number can be held exactly (Number.MAX_SAFE_INTEGER). */
	max?: number;
	/** What the number is, e.g. "the number of one of the run's steps". */
	meaning: string;
}

/** A flag whose value is a whole number: declared with its range, and read (or refused) by integerFlags alone. */
export function integerOption(range: IntegerRange): { type: 'string'; integer: IntegerRange } {
	return { type: 'string', integer: range };
}

/**
 * Decimal digits only: no sign, point, exponent, hex, space or empty text, each of which Number() reads as a
 * number (`0x1`, `1e0`, `+1`, `" 1"`, `1.0` are all 1, `""` is 0). No leading zero either (0 itself aside):
 * `010` is 8 to a shell's arithmetic and to C's strtol with base 0, so it is refused rather than guessed.
 */
const DECIMAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/** The longest value an error quotes: a flag's value is the user's text, possibly pasted by mistake. */
const QUOTED_VALUE_LENGTH = 40;

/** Reads one integer flag's text; anything but a decimal number within its range is a UsageError naming the flag. */
function integerOf(flag: string, text: string, range: IntegerRange): number {
	const max = range.max ?? Number.MAX_SAFE_INTEGER;
	const value = DECIMAL_INTEGER.test(text) ? Number(text) : Number.NaN;
	if (value >= range.min && value <= max) return value;
	const shown = JSON.stringify(
		text.length > QUOTED_VALUE_LENGTH ? `${text.slice(0, QUOTED_VALUE_LENGTH)}…` : text,
	);
	const bounds =
		range.max === undefined && !(value > max)
			? `from ${range.min} up`
			: `from ${range.min} to ${max}`;
	throw new UsageError(
		`--${flag} must be ${range.meaning}: a whole number ${bounds} in decimal digits, without sign, point, exponent ` +
			`or leading zero (e.g. --${flag}=${Math.max(range.min, 1)}), not ${shown}`,
	);
}

/**
 * Every integer flag of a command (those its options declare with integerOption) that was given, as numbers;
 * the first bad one is refused. Each command calls this right after parsing, before it reads a file or opens
 * a connection, so a refused value has changed nothing.
 */
export function integerFlags<Flag extends string>(
	options: Readonly<Record<Flag, { type: string; integer?: IntegerRange }>>,
	values: Readonly<Record<string, unknown>>,
): Partial<Record<Flag, number>> {
	const numbers: Partial<Record<Flag, number>> = {};
	for (const flag of Object.keys(options) as Flag[]) {
		const range = options[flag].integer;
		const text = values[flag];
		if (range !== undefined && typeof text === 'string')
			numbers[flag] = integerOf(flag, text, range);
	}
	return numbers;
}

/** The largest JSON file a flag reads: what a JavaScript string can hold. */
const MAX_JSON_FILE_BYTES = 512 * 1024 * 1024;

/** A JSON file a flag names, parsed (read bounded, regular files only); a file that cannot be read or is not JSON is a UsageError naming the flag. */
export function readJsonFile(path: string, flag: string): unknown {
	const read = readFileBounded(path, MAX_JSON_FILE_BYTES);
	const shown = shownFileName(path);
	if (!read.ok)
		throw new UsageError(
			read.over
				? `${flag}: ${shown} is over ${MAX_JSON_FILE_BYTES} bytes, more than a JSON file here can be`
				: read.problem.startsWith('cannot read it')
					? `${flag}: cannot read ${shown}${read.problem.slice('cannot read it'.length)}`
					: `${flag}: ${shown} ${read.problem}`,
		);
	const text = read.bytes.toString('utf8');
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new UsageError(`${flag}: ${shown} is not valid JSON (${(error as Error).message})`);
	}
}

/** `--provider`, `--base-url` and `--api-key` (or with `prefix` "fallback-", the fallback's), with the environment's defaults. */
export function providerFromFlags(
	values: Record<string, string | undefined>,
	prefix: '' | 'fallback-',
): ProviderOptions {
	const provider = (values[`${prefix}provider`] ?? 'openai') as ProviderName;
	if (provider !== 'openai' && provider !== 'gemini')
		throw new UsageError(`--${prefix}provider must be "openai" or "gemini", not "${provider}"`);
	const environmentKey = provider === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY';
	const apiKey = values[`${prefix}api-key`] ?? process.env[environmentKey];
	if (!apiKey)
		throw new UsageError(
			`no API key${prefix ? ' for the fallback' : ''}: pass --${prefix}api-key KEY or set ${environmentKey}`,
		);
	const baseUrl =
		values[`${prefix}base-url`] ??
		process.env[provider === 'gemini' ? 'GEMINI_BASE_URL' : 'OPENAI_BASE_URL'];
	return { provider, apiKey, baseUrl };
}

/** The fallback model of the `--fallback-*` flags; none without them, and `--fallback-model` is required with any. */
export function fallbackFromFlags(
	values: Record<string, string | undefined>,
): ProviderOptions | undefined {
	const given = [
		'fallback-provider',
		'fallback-model',
		'fallback-base-url',
		'fallback-api-key',
	].filter((flag) => values[flag] !== undefined);
	if (given.length === 0) return undefined;
	if (!values['fallback-model'])
		throw new UsageError(
			`--${given[0]} needs --fallback-model ID: the model the fallback is asked for`,
		);
	const fallback = { ...providerFromFlags(values, 'fallback-'), model: values['fallback-model'] };
	// Checked before any request: without its own key, the fallback reuses the primary's only on the primary's origin.
	const refusal =
		values['fallback-api-key'] === undefined
			? environmentKeyRefusal(
					providerFromFlags(values, ''),
					fallback,
					fallback.provider === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY',
				)
			: undefined;
	if (refusal) throw new UsageError(refusal);
	return fallback;
}

/** `--run-key KEY`: a durable run, checkpointed in the Redis of --redis-url (else REDIS_URL, else 127.0.0.1:6379); nothing without it. */
export function durableOptions(
	runKey: string | undefined,
	redisUrl: string,
): { runKey?: string; checkpoints?: CheckpointStore } {
	if (runKey === undefined) return {};
	if (runKey.trim() === '')
		throw new UsageError(
			'--run-key needs a key that names this run, e.g. the id of the request it answers',
		);
	return { runKey, checkpoints: new RedisCheckpoints({ connection: { url: redisUrl } }) };
}

/** Whether the config asks for a shared budget (the config itself is checked by the run). */
export function hasSharedBudget(config: unknown): boolean {
	return (
		typeof config === 'object' &&
		config !== null &&
		(config as { shared_budget?: unknown }).shared_budget != null
	);
}

/** `--provider`, `--base-url`, `--api-key` and the `--fallback-*` flags, as parseArgs options: run, resume and eval take the same. */
export const PROVIDER_FLAGS = {
	provider: { type: 'string' },
	'base-url': { type: 'string' },
	'api-key': { type: 'string' },
	'fallback-provider': { type: 'string' },
	'fallback-model': { type: 'string' },
	'fallback-base-url': { type: 'string' },
	'fallback-api-key': { type: 'string' },
} as const;

/** The flags of the settings that have one (the settings table's `cliFlag`), as parseArgs options. */
export const SETTING_FLAGS: Record<string, { type: 'string' }> = Object.fromEntries(
	Object.values(RUN_OPTION_SETTINGS).map((setting) => [setting.cliFlag, { type: 'string' }]),
);

/** Those flags' values under the library's option names (`--system` → `developerText`). */
export function runOptionsFromFlags(values: Record<string, string | undefined>): {
	developerText?: string;
} {
	return Object.fromEntries(
		Object.entries(RUN_OPTION_SETTINGS).map(([option, setting]) => [
			option,
			values[setting.cliFlag],
		]),
	);
}

/** `--stream` and `--stream-answer`: the run's events on stdout (NDJSON), the answer's text as written or once checked. */
export interface StreamChoice {
	onEvent?: (event: AgentEvent) => void;
	streamAnswer?: 'as-written' | 'checked';
}

/** What `--stream` and `--stream-answer` ask for; `--stream-answer` alone, or another value, is a usage error. */
export function streamChoice(stream: boolean, streamAnswer: string | undefined): StreamChoice {
	if (streamAnswer !== undefined && streamAnswer !== 'as-written' && streamAnswer !== 'checked') {
		throw new UsageError(
			`--stream-answer must be "as-written" or "checked", not "${streamAnswer}"`,
		);
	}
	if (streamAnswer !== undefined && !stream)
		throw new UsageError('--stream-answer needs --stream: without --stream nothing is streamed');
	if (!stream) return {};
	// One line per event, written as it happens; the engine has redacted every text in it.
	return {
		onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
		...(streamAnswer ? { streamAnswer } : {}),
	};
}
