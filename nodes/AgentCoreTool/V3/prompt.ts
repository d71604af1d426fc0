// The Prompt field's $fromAI calls: the arguments the tool asks the parent model for, and the prompt with their values.
import { extractFromAICalls, type FromAIArgument, type INode } from 'n8n-workflow';
import { TASK_PROMPT } from './description';

/** One $fromAI call in the Prompt as written: where it is, and its key, description, type and default. */
interface FromAiCall {
	start: number;
	end: number;
	argument: FromAIArgument;
}

/** The Prompt as written (its expression, not its value): a supplied tool fills its $fromAI calls itself. */
export const writtenPrompt = (node: INode): string =>
	typeof node.parameters.text === 'string' ? node.parameters.text : TASK_PROMPT;

/** Where the call that opens at `open` (its "(") closes, past quoted strings; -1 when it never does. */
function closingParenthesis(text: string, open: number): number {
	let depth = 0;
	let quote: string | undefined;
	for (let index = open; index < text.length; index++) {
		const char = text[index];
		if (quote) {
			if (char === '\\') index++;
			else if (char === quote) quote = undefined;
		} else if (char === "'" || char === '"' || char === '`') quote = char;
		else if (char === '(') depth++;
		else if (char === ')' && --depth === 0) return index;
	}
	return -1;
}

/** The $fromAI calls of an expression, in order (n8n-workflow's extractFromAICalls reads each one's arguments). */
function fromAiCalls(written: string): FromAiCall[] {
	if (!written.startsWith('=')) return [];
	const calls: FromAiCall[] = [];
	for (const match of written.matchAll(/\$fromai\s*\(/gi)) {
		const end = closingParenthesis(written, match.index + match[0].length - 1);
		if (end < 0) continue;
		const [argument] = extractFromAICalls(written.slice(match.index, end + 1));
		if (argument) calls.push({ start: match.index, end: end + 1, argument });
	}
	return calls;
}

/** The arguments the Prompt asks the parent model for, one per key. */
export function promptArguments(written: string): FromAIArgument[] {
	const byKey = new Map(fromAiCalls(written).map(({ argument }) => [argument.key, argument]));
	return [...byKey.values()];
}

/** Whether the Prompt is the task alone: then the tool is a sub-agent as the engine's are, `{task}` in, the task its prompt. */
export function isTaskAlone(written: string): boolean {
	const calls = fromAiCalls(written);
	if (calls.length !== 1 || calls[0].argument.key !== 'task') return false;
	const [{ start, end }] = calls;
	return /^=\{\{\s*$/.test(written.slice(0, start)) && /^\s*\}\}\s*$/.test(written.slice(end));
}

const JSON_TYPES = {
	string: 'string',
	number: 'number',
	boolean: 'boolean',
	json: 'object',
} as const;

/** The tool's arguments as JSON Schema: each $fromAI key, required unless it has a default. */
export function argumentsSchema(args: FromAIArgument[]): Record<string, unknown> {
	return {
		type: 'object',
		properties: Object.fromEntries(
			args.map(({ key, description, type }) => [
				key,
				{ type: JSON_TYPES[type ?? 'string'], ...(description ? { description } : {}) },
			]),
		),
		required: args.filter((arg) => arg.defaultValue === undefined).map((arg) => arg.key),
	};
}

/**
 * The Prompt with each $fromAI call replaced by the parent model's value for it (or its default) as a literal, so
 * n8n evaluates the rest of the expression as written; a Prompt that is no expression is the prompt as it is.
 */
export function promptWithArguments(written: string, values: Record<string, unknown>): string {
	let text = '';
	let from = 0;
	for (const { start, end, argument } of fromAiCalls(written)) {
		const value = values[argument.key] ?? argument.defaultValue ?? '';
		text += written.slice(from, start) + JSON.stringify(value);
		from = end;
	}
	return text + written.slice(from);
}
