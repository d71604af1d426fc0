import { loadOnce } from '../core/load-once';
import type { JmespathOutcome } from './json-transform-pool';
import type { Tool } from './tool';

/**
 * Longest result, in characters of JSON, that json_transform returns. A result is an observation the model
 * must read and the engine keeps in its trace; far beyond any useful observation_max_len, a bigger one is
 * a sign the expression selected too much, and rendering it would cost the worker time and memory for nothing.
 */
export const JSON_TRANSFORM_MAX_RESULT_LENGTH = 1_000_000;

/**
 * Longest `data`, in characters of JSON, that json_transform accepts. Models cannot get near it (their
 * replies are capped at 200,000 characters); it keeps a library caller from shipping huge values to the
 * worker, where parsing them would eat the memory limit.
 */
export const JSON_TRANSFORM_MAX_DATA_LENGTH = 1_000_000;

/**
 * Memory limit of each JMESPath worker (V8 old generation), in MB. Data at the cap parses into a few tens
 * of MB at worst and a result is at most 1,000,000 characters, so 128 MB leaves room for the intermediate
 * copies that projections, sort_by or to_string make, while an expression that multiplies its data
 * (`[@,@][]` repeated) dies within a second instead of growing the process by gigabytes.
 */
export const JSON_TRANSFORM_WORKER_MEMORY_MB = 128;

// Two, so that one slow expression running to its timeout does not stall quick transforms of other runs. Made (and
// its module loaded) on the first call: the node panels read only the tool's card.
const jmespathPool = loadOnce(() => {
	const { JmespathWorkerPool } =
		require('./json-transform-pool') as typeof import('./json-transform-pool');
	return new JmespathWorkerPool({
		size: 2,
		memoryLimitMb: JSON_TRANSFORM_WORKER_MEMORY_MB,
		maxResultLength: JSON_TRANSFORM_MAX_RESULT_LENGTH,
	});
});

interface JsonTransformArgs {
	data: unknown;
	expression: string;
}

/**
 * Applies a JMESPath expression to `data`; the result (JSON) is the observation. Evaluation runs in a
 * worker thread that the call's signal terminates, and only own properties of objects are read.
 */
export const jsonTransformTool: Tool<JsonTransformArgs> = {
	name: 'json_transform',
	description:
		'Select, filter or reshape JSON data with a JMESPath expression, e.g. "items[?price > `10`].name" or "length(users)".',
	// Reads its args only.
	sideEffects: false,
	parameters: {
		type: 'object',
		properties: {
			data: { description: 'The JSON value to transform (object, array or scalar).' },
			expression: {
				type: 'string',
				minLength: 1,
				maxLength: 2000,
				description: 'A JMESPath expression.',
			},
		},
		required: ['data', 'expression'],
		additionalProperties: false,
	},
	async execute({ data, expression }, context) {
		const outcome = await jmespathPool().evaluate(dataAsJson(data), expression, context.signal);
		if (outcome.outcome === 'result') return JSON.parse(outcome.json);
		throw new Error(describeFailure(expression, outcome));
	},
};

function dataAsJson(data: unknown): string {
	let text: string | undefined;
	try {
		text = JSON.stringify(data);
	} catch (error) {
		throw new Error(`data must be JSON: ${(error as Error).message}`);
	}
	text ??= 'null';
	if (text.length > JSON_TRANSFORM_MAX_DATA_LENGTH) {
		throw new Error(
			`data is ${formatCount(text.length)} characters of JSON, ` +
				`more than the limit of ${formatCount(JSON_TRANSFORM_MAX_DATA_LENGTH)}; pass only the part the expression needs`,
		);
	}
	return text;
}

function describeFailure(
	expression: string,
	outcome: Exclude<JmespathOutcome, { outcome: 'result' }>,
): string {
	const quoted = JSON.stringify(expression);
	switch (outcome.outcome) {
		case 'expression-error':
			return describeJmespathError(expression, outcome.message);
		case 'result-too-large':
			return (
				`the result of ${quoted} is more than ${formatCount(JSON_TRANSFORM_MAX_RESULT_LENGTH)} characters of JSON; ` +
				'select less, e.g. add a filter such as [?price > `10`] or keep the first items with [:10]'
			);
		case 'out-of-memory':
			return `the expression ${quoted} needed more than ${JSON_TRANSFORM_WORKER_MEMORY_MB} MB of memory; simplify it or select less data first`;
		case 'out-of-room':
			return `the expression ${quoted} ran out of room (${outcome.message}); simplify it or select less data first`;
		case 'worker-failed':
			return `could not evaluate ${quoted}: ${outcome.message}`;
	}
}

/** JMESPath's own messages are terse; add where it failed and the usual fixes. */
function describeJmespathError(expression: string, message: string): string {
	const hints: string[] = [];
	if (/Unknown character|Unexpected token/i.test(message)) {
		hints.push('quote keys that contain dashes or spaces with double quotes, e.g. "user-id"');
		hints.push(
			'write literal numbers in backticks, e.g. [?age > `30`], and strings in single quotes',
		);
	}
	if (/Unknown function/i.test(message)) {
		hints.push(
			'JMESPath functions include length, keys, values, sort_by, max_by, min_by, contains, join, to_string',
		);
	}
	const hintText = hints.length > 0 ? ` Hints: ${hints.join('; ')}.` : '';
	return `invalid JMESPath expression ${JSON.stringify(expression)}: ${message}.${hintText}`;
}

function formatCount(count: number): string {
	return count.toLocaleString('en-US');
}
