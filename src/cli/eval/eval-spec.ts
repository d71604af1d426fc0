// `agent-core eval`'s gates and thresholds as written (a dataset line's "expected", the --gates file), checked before any model call.
import type { FinishReason } from '../../trace/types';
import { patternProblem } from '../../validation/linear-regexp';
import { SchemaError } from '../../validation/schema-error';
import { assertValidSchema, type JsonSchema } from '../../validation/validate';
import { UsageError } from '../flags';

/** Every finish reason, so a gate naming one that does not exist is refused (the type keeps the list whole). */
const FINISH_REASONS = {
	final: true,
	max_steps: true,
	max_tool_calls: true,
	timeout: true,
	token_budget: true,
	llm_error: true,
	parse_error: true,
	tool_error: true,
	max_output_tokens: true,
	content_filter: true,
	output_invalid: true,
	loop: true,
	budget_exhausted: true,
	budget_unavailable: true,
	cost_limit: true,
	awaiting_approval: true,
	interrupted_call: true,
	guardrail: true,
	plan_rejected: true,
	plan_step_failed: true,
	cancelled: true,
} satisfies Record<FinishReason, true>;

/** What one case must show; a dataset line's `expected` and the gates file's `every_case` take the same keys. */
export interface GateSpec {
	/** Exact answer: a string is compared with `final_answer`; any other JSON value with the typed answer (`final_output`). */
	answer?: unknown;
	/** Text the answer must contain, each one (case-sensitive). */
	contains?: string[];
	/** A pattern (JavaScript syntax, run by the linear-time RE2 engine) the answer must match somewhere. */
	regex?: string;
	/** A JSON Schema the answer must match: the typed answer, else the answer parsed as JSON, else its text. */
	schema?: JsonSchema;
	/** Tools that must have run at least once. */
	tools?: string[];
	/** Tools the model must never have asked for. */
	not_tools?: string[];
	/** No step may end with a tool error (tool_error, tool_timeout, invalid_args, tool_not_allowed). */
	no_tool_errors?: boolean;
	/** The finish reasons that pass; `["final"]` unless a gate says otherwise. */
	finish_reason?: FinishReason[];
	/** At most this many steps (model turns), tokens (usage.total_tokens) and USD (the run's `cost`). */
	max_steps?: number;
	max_tokens?: number;
	max_cost?: number;
}

/** The gates in the order results and the summary list them. */
export const GATE_NAMES = [
	'answer',
	'contains',
	'regex',
	'schema',
	'tools',
	'not_tools',
	'no_tool_errors',
	'finish_reason',
	'max_steps',
	'max_tokens',
	'max_cost',
] as const satisfies readonly (keyof GateSpec)[];
export type GateName = (typeof GATE_NAMES)[number];

/** What the whole set must show. Without pass_rate or max_failed, every case must pass. */
export interface Thresholds {
	/** The share of cases that pass, 0 to 1. */
	pass_rate?: number;
	/** At most this many cases fail. */
	max_failed?: number;
	/** USD over every case; a case without a price fails it. */
	max_total_cost?: number;
	max_total_tokens?: number;
	/** Tool errors over every case. */
	max_tool_errors?: number;
}

const THRESHOLD_NAMES = [
	'pass_rate',
	'max_failed',
	'max_total_cost',
	'max_total_tokens',
	'max_tool_errors',
] as const satisfies readonly (keyof Thresholds)[];

/** The --gates file: gates added to every case (a case's own `expected` key replaces the same key), and thresholds. */
export interface GatesFile {
	every_case: GateSpec;
	thresholds: Thresholds;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A problem with `where`.`key`: the message names the place (the dataset's line, or the gates file) and the key. */
function refuse(where: string, key: string, problem: string): never {
	throw new UsageError(`${where}${key ? `.${key}` : ''} ${problem}`);
}

function names(value: unknown, where: string, key: string): string[] {
	const list = typeof value === 'string' ? [value] : value;
	if (
		!Array.isArray(list) ||
		list.length === 0 ||
		!list.every((name) => typeof name === 'string' && name !== '')
	) {
		refuse(where, key, 'must be a name or a non-empty array of names');
	}
	return list as string[];
}

function limit(value: unknown, where: string, key: string, whole: boolean): number {
	if (
		typeof value !== 'number' ||
		!Number.isFinite(value) ||
		value < 0 ||
		(whole && !Number.isInteger(value))
	) {
		refuse(
			where,
			key,
			`must be ${whole ? 'a whole number' : 'a number'}, 0 or more, not ${JSON.stringify(value)}`,
		);
	}
	return value;
}

/** A pattern RE2 cannot run (a back-reference, a lookahead) is refused here, with the engine's fix. */
function pattern(value: unknown, where: string, key: string): string {
	if (typeof value !== 'string' || value === '')
		refuse(where, key, 'must be a pattern (a non-empty string)');
	const problem = patternProblem(value);
	if (problem) refuse(where, key, `${problem.problem}. ${problem.fix}`);
	return value;
}

function schema(value: unknown, where: string, key: string): JsonSchema {
	if (!isObject(value)) refuse(where, key, 'must be a JSON Schema object');
	try {
		assertValidSchema(value, `${where}.${key}`);
	} catch (error) {
		if (error instanceof SchemaError) refuse(where, key, `${error.problem}. ${error.fix}`);
		throw error;
	}
	return value;
}

function finishReasons(value: unknown, where: string, key: string): FinishReason[] {
	const list = names(value, where, key);
	const unknown = list.find((reason) => !Object.hasOwn(FINISH_REASONS, reason));
	if (unknown !== undefined)
		refuse(
			where,
			key,
			`names "${unknown}", which is no finish reason (README "Finish reasons" lists them)`,
		);
	return list as FinishReason[];
}

/** Checks gates as written at `where` (e.g. `--dataset cases.jsonl line 3: expected`); throws UsageError naming the key. */
export function parseGateSpec(raw: unknown, where: string): GateSpec {
	if (!isObject(raw)) refuse(where, '', `must be an object of gates (${GATE_NAMES.join(', ')})`);
	const spec: GateSpec = {};
	for (const [key, value] of Object.entries(raw)) {
		switch (key) {
			case 'answer':
				if (value === null || value === undefined)
					refuse(
						where,
						key,
						'must be the exact answer: a string, or the JSON value of a typed answer',
					);
				spec.answer = value;
				break;
			case 'contains':
				if (
					Array.isArray(value)
						? !value.every((text) => typeof text === 'string' && text !== '') || value.length === 0
						: typeof value !== 'string' || value === ''
				) {
					refuse(
						where,
						key,
						'must be text, or a non-empty array of texts, that the answer contains',
					);
				}
				spec.contains = typeof value === 'string' ? [value] : (value as string[]);
				break;
			case 'regex':
				spec.regex = pattern(value, where, key);
				break;
			case 'schema':
				spec.schema = schema(value, where, key);
				break;
			case 'tools':
			case 'not_tools':
				spec[key] = names(value, where, key);
				break;
			case 'no_tool_errors':
				if (typeof value !== 'boolean') refuse(where, key, 'must be true or false');
				spec.no_tool_errors = value;
				break;
			case 'finish_reason':
				spec.finish_reason = finishReasons(value, where, key);
				break;
			case 'max_steps':
			case 'max_tokens':
				spec[key] = limit(value, where, key, true);
				break;
			case 'max_cost':
				spec.max_cost = limit(value, where, key, false);
				break;
			default:
				refuse(where, key, `is not a gate: use ${GATE_NAMES.join(', ')}`);
		}
	}
	return spec;
}

/** The gates one case is held to: finish_reason "final" by default, then every_case's, then its own (key by key). */
export function gatesForCase(everyCase: GateSpec, expected: GateSpec): GateSpec {
	return { finish_reason: ['final'], ...everyCase, ...expected };
}

function parseThresholds(raw: unknown, where: string): Thresholds {
	if (!isObject(raw)) refuse(where, '', `must be an object (${THRESHOLD_NAMES.join(', ')})`);
	const thresholds: Thresholds = {};
	for (const [key, value] of Object.entries(raw)) {
		if (key === 'pass_rate') {
			if (typeof value !== 'number' || !(value >= 0 && value <= 1))
				refuse(
					where,
					key,
					`must be a share from 0 to 1 (0.9 = 90% of cases), not ${JSON.stringify(value)}`,
				);
			thresholds.pass_rate = value;
		} else if (key === 'max_failed' || key === 'max_total_tokens' || key === 'max_tool_errors') {
			thresholds[key] = limit(value, where, key, true);
		} else if (key === 'max_total_cost') {
			thresholds.max_total_cost = limit(value, where, key, false);
		} else {
			refuse(where, key, `is not a threshold: use ${THRESHOLD_NAMES.join(', ')}`);
		}
	}
	return thresholds;
}

/** The --gates file's JSON, checked: `{"every_case": {…gates}, "thresholds": {…}}`, both optional. */
export function parseGatesFile(raw: unknown, path: string): GatesFile {
	const where = `--gates ${path}:`;
	if (!isObject(raw))
		throw new UsageError(`${where} must be a JSON object with every_case and/or thresholds`);
	const unknown = Object.keys(raw).find((key) => key !== 'every_case' && key !== 'thresholds');
	if (unknown !== undefined)
		throw new UsageError(
			`${where} "${unknown}" is not a section: use every_case (gates for each case) and thresholds (over the set)`,
		);
	return {
		every_case:
			raw.every_case === undefined ? {} : parseGateSpec(raw.every_case, `${where} every_case`),
		thresholds:
			raw.thresholds === undefined ? {} : parseThresholds(raw.thresholds, `${where} thresholds`),
	};
}
