// `agent-core eval`'s dataset: one JSON case a line, every line checked before any model call.
import { InputError } from '../../core/input-error';
import { parseMessages, type ChatMessage } from '../../core/messages';
import { datasetLines, refuseTooDeep } from './eval-bounds';
import { parseGateSpec, type GateSpec } from './eval-spec';
import { UsageError } from '../flags';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One case of the dataset. */
export interface EvalCase {
	/** The line's `id`, else `line N`. */
	id: string;
	/** Its line number in the file, from 1. */
	line: number;
	/** The user's message, or a conversation that ends with one. */
	input: { prompt: string } | { messages: ChatMessage[] };
	/** The line's `expected` gates (the gates file's every_case is added when the case runs). */
	expected: GateSpec;
	/** Files sent with the case's message (issue #40): paths, resolved from the dataset's folder; read when the case runs. */
	files?: string[];
}

const CASE_KEYS = ['id', 'input', 'expected', 'files'];

/** A case's `files`: paths of regular files, relative to the dataset's folder; each must exist when the set starts. */
function caseFiles(value: unknown, where: string, datasetPath: string): string[] {
	if (!Array.isArray(value) || value.some((path) => typeof path !== 'string' || path === ''))
		throw new UsageError(
			`${where} files must be a list of file paths (relative to the dataset's folder), e.g. ["invoices/17.pdf"]`,
		);
	return value.map((path: string, index) => {
		const resolved = resolve(dirname(datasetPath), path);
		const stats = statSync(resolved, { throwIfNoEntry: false });
		if (!stats?.isFile())
			throw new UsageError(
				`${where} files[${index}]: ${resolved} ${stats ? 'is not a file' : 'does not exist'}`,
			);
		return resolved;
	});
}

function caseInput(value: unknown, where: string): EvalCase['input'] {
	if (typeof value === 'string') {
		if (value.trim() === '')
			throw new UsageError(
				`${where} input is empty: give the user's message, or a [{role, content}] conversation`,
			);
		return { prompt: value };
	}
	if (!Array.isArray(value))
		throw new UsageError(
			`${where} input must be the user's message (a string) or a [{role, content}] conversation`,
		);
	let messages: ChatMessage[];
	try {
		messages = parseMessages(value, 'input');
	} catch (error) {
		if (error instanceof InputError) throw new UsageError(`${where} ${error.message}`);
		throw error;
	}
	const last = messages[messages.length - 1];
	if (last?.role !== 'user')
		throw new UsageError(
			`${where} input must end with a user message (the request to answer), but it ${last ? `ends with a ${last.role} message` : 'is empty'}`,
		);
	return { messages };
}

function parseCase(text: string, line: number, path: string): EvalCase {
	const where = `--dataset ${path} line ${line}:`;
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw new UsageError(
			`${where} not valid JSON (${(error as Error).message}): write one case a line, e.g. {"input": "What is 2+2?"}`,
		);
	}
	// Before any part is read: gates compare and compile values by recursion.
	refuseTooDeep(raw, where);
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
		throw new UsageError(
			`${where} must be a JSON object with input and, optionally, id and expected`,
		);
	const record = raw as Record<string, unknown>;
	const unknown = Object.keys(record).find((key) => !CASE_KEYS.includes(key));
	if (unknown !== undefined)
		throw new UsageError(
			`${where} "${unknown}" is not a field of a case: use id, input, expected (gates go inside expected)`,
		);
	if (record.input === undefined)
		throw new UsageError(
			`${where} input is missing: give the user's message, or a [{role, content}] conversation`,
		);
	const id = record.id;
	if (
		id !== undefined &&
		!(typeof id === 'string' && id !== '') &&
		!(typeof id === 'number' && Number.isFinite(id))
	) {
		throw new UsageError(`${where} id must be a non-empty string or a number`);
	}
	return {
		id: id === undefined ? `line ${line}` : String(id),
		line,
		input: caseInput(record.input, where),
		expected:
			record.expected === undefined ? {} : parseGateSpec(record.expected, `${where} expected`),
		...(record.files === undefined ? {} : { files: caseFiles(record.files, where, path) }),
	};
}

/**
 * Reads and checks the whole dataset (blank lines skipped, CRLF line ends and a leading byte order mark
 * accepted); the first bad line is refused, naming its number and field, before any model call.
 */
export function readDataset(path: string): EvalCase[] {
	const cases: EvalCase[] = [];
	const lines = new Map<string, number>();
	for (const { number, text } of datasetLines(path)) {
		const evalCase = parseCase(text, number, path);
		const earlier = lines.get(evalCase.id);
		if (earlier !== undefined)
			throw new UsageError(
				`--dataset ${path} line ${evalCase.line}: id "${evalCase.id}" is already the id of line ${earlier}; ids name one case each`,
			);
		lines.set(evalCase.id, evalCase.line);
		cases.push(evalCase);
	}
	if (cases.length === 0)
		throw new UsageError(
			`--dataset ${path} has no cases: write one JSON object a line, e.g. {"input": "What is 2+2?", "expected": {"contains": "4"}}`,
		);
	return cases;
}
